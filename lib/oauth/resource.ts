// RFC 8707 resource indicators: Gatehouse protects exactly one resource, PUBLIC_URL/mcp.
import { env } from '@/lib/env';

export function mcpResource(): string {
  return `${env().publicUrl}/mcp`;
}

/**
 * Canonical form for comparison: lower-case scheme and host (URL does that), no default port (URL
 * drops it), no trailing slash, no fragment. Returns null for anything that is not an absolute URL.
 */
export function canonicalResource(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.hash || url.username || url.password) return null;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

export function isMcpResource(value: string): boolean {
  return canonicalResource(value) === canonicalResource(mcpResource());
}
