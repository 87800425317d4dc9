// RFC 9728 protected-resource metadata for /mcp: how a client that got a 401 finds Gatehouse.
import { env } from '@/lib/env';
import { mcpResource } from './resource';
import { MCP_SCOPES } from './scopes';

export function protectedResourceMetadata() {
  return {
    resource: mcpResource(),
    authorization_servers: [env().publicUrl],
    bearer_methods_supported: ['header'],
    // Never offline_access: refresh tokens are issued without it (docs/protocol.md §1).
    scopes_supported: Object.keys(MCP_SCOPES),
    resource_name: 'Gatehouse MCP',
  };
}

export function protectedResourceResponse(): Response {
  return Response.json(protectedResourceMetadata(), {
    headers: { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' },
  });
}
