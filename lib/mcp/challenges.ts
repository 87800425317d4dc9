// WWW-Authenticate challenges for /mcp (RFC 6750 §3, RFC 9728 §5.1, docs/protocol.md §6).
import { env } from '@/lib/env';
import { MCP_SCOPES } from '@/lib/oauth/scopes';

export function resourceMetadataUrl(): string {
  return `${env().publicUrl}/.well-known/oauth-protected-resource`;
}

export function bearerChallenge(options: { error?: string; description?: string; scope?: string }): string {
  const parts = [`resource_metadata="${resourceMetadataUrl()}"`, `scope="${options.scope ?? Object.keys(MCP_SCOPES).join(' ')}"`];
  if (options.error) parts.push(`error="${options.error}"`);
  // Header values must be printable ASCII (RFC 9110 §5.5): anything else (quotes, non-Latin names) goes.
  if (options.description) parts.push(`error_description="${options.description.replace(/[^\x20-\x7e]|["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}

export function insufficientScopeChallenge(scope: string): string {
  return bearerChallenge({ error: 'insufficient_scope', scope });
}
