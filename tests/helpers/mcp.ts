// Talking to /mcp over plain HTTP, as a client does on the wire.
export type McpReply = { status: number; headers: Headers; body: Record<string, any> | null; text: string };

/**
 * POSTs one message to /mcp. `streamed` sends the body as a stream, without a Content-Length (chunked):
 * /mcp then reads it only after the token (docs/protocol.md §6 step 4), where a small body with a length
 * is read first.
 */
export async function postMcp(baseUrl: string, token: string | null, body: unknown, headers: Record<string, string> = {}, { streamed = false } = {}): Promise<McpReply> {
  const sent = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: streamed ? new Blob([sent]).stream() : sent,
    ...(streamed ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await response.text();
  let parsed: Record<string, any> | null = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

let nextId = 1;

export function rpc(method: string, params?: Record<string, unknown>, id: string | number = nextId++) {
  return { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
}

/** A 2026-07-28 request: version and capabilities in _meta, plus the standard headers. */
export function rpc2026(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  const body = rpc(method, {
    ...params,
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, ...meta },
  });
  const name = (params.name ?? params.uri) as string | undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (name && ['tools/call', 'resources/read', 'prompts/get'].includes(method)) headers['mcp-name'] = name;
  return { body, headers };
}
