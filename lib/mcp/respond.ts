// Bytes on the wire for /mcp: JSON-RPC results and errors, JSON by default or one SSE `message` event
// when the client accepts only an event stream (docs/protocol.md §6), and CORS for browser-based clients.
import { env } from '@/lib/env';
import type { JsonRpcId, McpError } from './errors';

const EXPOSED = 'WWW-Authenticate, MCP-Protocol-Version, Retry-After';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, traceparent, tracestate, baggage';

export function jsonRpcResult(request: Request, id: JsonRpcId, result: unknown, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify({ jsonrpc: '2.0', id, result });
  if (wantsEventStream(request.headers.get('accept'))) {
    return new Response(`event: message\ndata: ${body}\n\n`, {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', ...headers },
    });
  }
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', ...headers } });
}

export function jsonRpcError(id: JsonRpcId, error: McpError): Response {
  const payload = { code: error.code, message: error.message, ...(error.options.data !== undefined ? { data: error.options.data } : {}) };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: payload }), {
    status: error.httpStatus,
    headers: { 'Content-Type': 'application/json', ...error.options.headers },
  });
}

/** SSE only when text/event-stream is acceptable and application/json is not. */
export function wantsEventStream(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept
    .split(',')
    .map((part) => part.split(';'))
    .filter(([, ...parameters]) => !parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(parameter)))
    .map(([type]) => type!.trim().toLowerCase());
  const json = types.some((type) => type === 'application/json' || type === 'application/*' || type === '*/*');
  const sse = types.some((type) => type === 'text/event-stream' || type === 'text/*');
  return sse && !json;
}

/** The public origin, loopback origins (local tools and inspectors), and MCP_ALLOWED_ORIGINS. */
export function isAllowedOrigin(origin: string): boolean {
  const { publicUrl, mcpAllowedOrigins } = env();
  if (origin === new URL(publicUrl).origin || mcpAllowedOrigins.includes(origin)) return true;
  return /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin);
}

export function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin || !isAllowedOrigin(origin)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
}

export function preflight(request: Request): Response {
  const origin = request.headers.get('origin');
  if (origin && !isAllowedOrigin(origin)) return new Response(null, { status: 403, headers: { Vary: 'Origin' } });
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
    },
  });
}
