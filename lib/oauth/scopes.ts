// The scopes a person can grant (docs/protocol.md §1), and how an authorization request's `scope` is read.
import { hasOwnKey } from '@/lib/own-keys';

export const MCP_SCOPES = {
  'mcp:read': "Read your organization's data",
  'mcp:write': 'Make changes on your behalf',
} as const;

export type McpScope = keyof typeof MCP_SCOPES;

export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

export const ALL_SCOPES = [...OIDC_SCOPES, ...(Object.keys(MCP_SCOPES) as McpScope[])];

/** Scopes come from requests: only the table's own keys are scopes (`constructor` is not one). */
export function isMcpScope(scope: string): scope is McpScope {
  return hasOwnKey(MCP_SCOPES, scope);
}

/**
 * The scope Gatehouse will ask the person about. Unknown scopes (old Claude sent `claudeai`) are
 * dropped rather than refused; a request that names no `mcp:*` scope is offered both.
 */
export function normalizeRequestedScope(scope: string | undefined | null): string {
  const requested = (scope ?? '').split(/\s+/).filter(Boolean);
  const known = [...new Set(requested.filter((item) => (ALL_SCOPES as string[]).includes(item)))];
  if (!known.some(isMcpScope)) known.push('mcp:read', 'mcp:write');
  return known.join(' ');
}
