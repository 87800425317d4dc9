// RFC 8707 resource indicators: Gatehouse protects exactly one resource, PUBLIC_URL/mcp.
//
// One rule, applied identically at the authorization request, the consent decision and the token
// request, before the provider sees the value: a resource is the MCP resource when it is PUBLIC_URL/mcp
// up to the normalisations of RFC 3986 §6.2.2.1 (scheme and host are case-insensitive) and §6.2.3 (a
// scheme's default port may be spelled out). It is then rewritten to the canonical PUBLIC_URL/mcp, the
// one spelling that grants, codes and tokens store. Everything else gets invalid_target (RFC 8707 §2):
// another host, path or port; a trailing slash, a query (even an empty `?`) or a fragment; userinfo; dot
// segments and percent-encoding, which a parser resolves but a resource server may not.
import { env } from '@/lib/env';

export function mcpResource(): string {
  return `${env().publicUrl}/mcp`;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** scheme "://" authority path, with nothing after the path. */
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\\@]*)(\/[^?#\\]*)?$/;

/** The canonical MCP resource for a spelling of it, or null when `value` is not the MCP resource. */
export function canonicalResource(value: string): string | null {
  const canonical = mcpResource();
  const expected = ABSOLUTE.exec(canonical)!;
  const presented = ABSOLUTE.exec(value);
  if (!presented) return null;
  const scheme = presented[1]!.toLowerCase();
  let authority = presented[2]!.toLowerCase();
  const port = DEFAULT_PORTS[scheme];
  if (port && authority.endsWith(`:${port}`)) authority = authority.slice(0, -port.length - 1);
  const same = scheme === expected[1] && authority === expected[2] && presented[3] === expected[3];
  return same ? canonical : null;
}

export function isMcpResource(value: string): boolean {
  return value === mcpResource();
}

export type ResourceParameter = { ok: true; resource: string | null } | { ok: false; refused: string };

/**
 * The `resource` parameters of a request under the rule above: none (null), or the canonical resource
 * when every one names it (repeating it changes nothing); otherwise the first value refused.
 */
export function resourceParameter(values: string[]): ResourceParameter {
  if (values.length === 0) return { ok: true, resource: null };
  for (const value of values) {
    if (canonicalResource(value) === null) return { ok: false, refused: value };
  }
  return { ok: true, resource: mcpResource() };
}
