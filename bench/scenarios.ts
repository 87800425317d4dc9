// What the benchmark measures (issue: performance), each as autocannon requests and the status that
// counts as the intended answer. Tokens rotate over every connection, one grant each.
import type { Request } from 'autocannon';
import type { Connection } from './tokens';

export type Scenario = { key: string; label: string; expectedStatus: number; requests: () => Request[] };

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

function rpc(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });
}

/** Each request takes the next connection's access token, round robin. */
function withRotatingTokens(connections: Connection[], body: string): () => Request[] {
  return () => {
    let next = 0;
    return [
      {
        method: 'POST',
        path: '/mcp',
        headers: MCP_HEADERS,
        body,
        setupRequest: (request) => ({
          ...request,
          headers: { ...MCP_HEADERS, authorization: `Bearer ${connections[next++ % connections.length]!.accessToken}` },
        }),
      },
    ];
  };
}

export function scenarios(connections: Connection[]): Scenario[] {
  return [
    { key: 'A', label: 'Baseline: GET /healthz (no database)', expectedStatus: 200, requests: () => [{ method: 'GET', path: '/healthz' }] },
    { key: 'B', label: 'POST /mcp tools/call whoami', expectedStatus: 200, requests: withRotatingTokens(connections, rpc('tools/call', { name: 'whoami', arguments: {} })) },
    { key: 'C', label: 'POST /mcp tools/list', expectedStatus: 200, requests: withRotatingTokens(connections, rpc('tools/list')) },
    { key: 'D', label: 'POST /mcp without a token (401)', expectedStatus: 401, requests: () => [{ method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: rpc('tools/list') }] },
    refreshScenario(connections),
    {
      key: 'F',
      label: 'POST /oauth/register',
      expectedStatus: 201,
      requests: () => [
        {
          method: 'POST',
          path: '/oauth/register',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Bench registration', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
        },
      ],
    },
  ];
}

/**
 * E: every refresh rotates the token, so each autocannon connection follows one client's chain
 * (pipelining 1: one request in flight per connection), starting from that client's newest token.
 */
function refreshScenario(connections: Connection[]): Scenario {
  const latest = new Map(connections.map((connection) => [connection.clientId, connection.refreshToken]));
  return {
    key: 'E',
    label: 'POST /oauth/token refresh (rotation)',
    expectedStatus: 200,
    requests: () => {
      let assigned = 0; // per run: connection n takes client n (there are at least as many clients)
      return [
        {
          method: 'POST',
          path: '/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (request, context) => {
            context.clientId ??= connections[assigned++ % connections.length]!.clientId;
            const clientId = context.clientId as string;
            return { ...request, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: latest.get(clientId)!, client_id: clientId }).toString() };
          },
          onResponse: (status, body, context) => {
            if (status === 200) latest.set(context.clientId as string, (JSON.parse(body) as { refresh_token: string }).refresh_token);
          },
        },
      ];
    },
  };
}
