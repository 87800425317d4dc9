// Talking to a connector's upstream MCP server (docs/connectors.md) through the official SDK's client over
// Streamable HTTP, at whatever revision that client negotiates. Gatehouse declares no client capabilities
// upstream, and sends only its own credential for the connector: never anything of the caller's (MCP
// 2025-11-25, Basic › Authorization: token passthrough is forbidden).
//
// Every read here is a network read: none may run while a database transaction is held
// (assertNoTransaction), so a slow upstream never holds a database connection.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { assertNoTransaction } from '@/lib/db/open-transaction';
import type { TokenSource } from './upstream-auth';
import { UpstreamError } from './upstream-errors';
import { cappedFetch } from './upstream-http';

/**
 * Where and how to reach an upstream: its header credential, or (client credentials) where its access token
 * comes from (upstream-auth.ts bearerFetch adds it to every request).
 */
export type UpstreamTarget = { url: string; headers: Record<string, string>; timeoutMs: number; token?: TokenSource };

/** The most bytes of one upstream answer Gatehouse reads for a catalog (a tools/list page). */
export const CATALOG_PAGE_BYTES = 4 * 1024 * 1024;
/** The most tools/list pages read in one refresh: an upstream that pages forever is cut off. */
const MAX_PAGES = 50;

// tools/list as the upstream sent it: each entry is checked by definitions.ts, one at a time, so that one
// bad tool is named instead of failing the whole catalog.
const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().max(1024).optional() });

/**
 * Opens an SDK client to the upstream; the caller closes it. No client capabilities are declared: a request
 * the upstream sends back (sampling, elicitation, roots) finds no handler and is answered -32601.
 */
export async function openUpstream(target: UpstreamTarget, options: { fetch?: typeof fetch } = {}): Promise<Client> {
  assertNoTransaction('an upstream MCP call');
  const client = new Client({ name: 'gatehouse', version: '1' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: target.headers },
    fetch: withoutListeningStream(options.fetch ?? cappedFetch(CATALOG_PAGE_BYTES)),
  });
  try {
    await client.connect(transport, { timeout: target.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw upstreamError(error, target);
  }
  return client;
}

/**
 * The SDK opens a GET stream after initializing, for messages the server sends on its own (MCP 2025-06-18,
 * Transports › Listening for Messages from the Server, which a client MAY do). Gatehouse has no use for
 * them: it declares no capabilities and passes no server notification on, and the stream would be one
 * more connection per connector per process, reopened by the SDK each time the upstream drops it, even
 * while its circuit is open. It is answered as an upstream without one answers (405), without sending
 * anything; a GET resuming a call's interrupted stream (with Last-Event-ID) goes through.
 */
function withoutListeningStream(base: typeof fetch): typeof fetch {
  return (input, init) => {
    if (init?.method === 'GET' && !new Headers(init.headers).has('last-event-id')) return Promise.resolve(new Response(null, { status: 405 }));
    return base(input, init);
  };
}

/** Every page of the upstream's tools/list, as sent (each entry unchecked). */
export async function listUpstreamTools(target: UpstreamTarget, options: { fetch?: typeof fetch } = {}): Promise<unknown[]> {
  const client = await openUpstream(target, options);
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ToolsPage, { timeout: target.timeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
    throw new UpstreamError(`the upstream's tools/list has more than ${MAX_PAGES} pages`, 'malformed');
  } catch (error) {
    throw upstreamError(error, target);
  } finally {
    await client.close().catch(() => {});
  }
}

/** An error from the SDK or the network, as an UpstreamError that says which, without the credential. */
export function upstreamError(error: unknown, target: UpstreamTarget): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const cause = error instanceof Error ? error : new Error(String(error));
  const nested = (cause as { cause?: unknown }).cause;
  if (nested instanceof UpstreamError) return nested;
  const origin = new URL(target.url).origin;
  if (error instanceof McpError) {
    // The SDK reports its own timeout and a closed transport as McpErrors with codes an upstream may also
    // answer with (-32001, -32000, a common generic server error): only the SDK's own are taken for what
    // they say (its timeout carries the timeout in data; its closed transport has this one message).
    const data = error.data as { timeout?: unknown } | undefined;
    if (error.code === ErrorCode.RequestTimeout && typeof data?.timeout === 'number') {
      return new UpstreamError(`the upstream did not answer within ${target.timeoutMs} ms`, 'timeout');
    }
    if (error.code === ErrorCode.ConnectionClosed && error.message === 'MCP error -32000: Connection closed' && data === undefined) {
      return new UpstreamError(`the connection to the upstream at ${origin} was closed`, 'unreachable');
    }
    // The upstream's own words, as untrusted text: one line, bounded.
    return new UpstreamError(`the upstream answered with an error (${firstLine(error.message.replace(/^MCP error /, ''))})`, 'jsonrpc');
  }
  if (error instanceof StreamableHTTPError) {
    if (error.code === 404) return new UpstreamError(`the upstream at ${origin} answered HTTP 404`, 'session_gone');
    if (error.code === 401 || error.code === 403) return new UpstreamError(`the upstream refused Gatehouse's credential (HTTP ${error.code})`, 'refused', error.code);
    if (error.code === -1) return new UpstreamError(`the upstream's answer is not MCP (${firstLine(error.message)})`, 'malformed');
    return new UpstreamError(`the upstream at ${origin} answered HTTP ${error.code}`, 'unreachable');
  }
  // A body that is not JSON, or a message or result of the wrong shape.
  if (cause instanceof SyntaxError || cause.name === 'ZodError' || cause.name === '$ZodError') {
    return new UpstreamError(`the upstream's answer is not a valid MCP message (${firstLine(cause.message)})`, 'malformed');
  }
  const message = cause.message.slice(0, 300);
  if (/timed? ?out|RequestTimeout/i.test(message)) return new UpstreamError(`the upstream did not answer within ${target.timeoutMs} ms`, 'timeout');
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|certificate|TLS|socket|terminated|redirect/i.test(`${message} ${String(nested)}`)) {
    return new UpstreamError(`the upstream at ${origin} could not be reached (${firstLine(String(nested ?? message))})`, 'unreachable');
  }
  return new UpstreamError(`the upstream's answer could not be used (${firstLine(message)})`, 'malformed');
}

function firstLine(text: string): string {
  // Control characters out: this text reaches people and logs.
  return (
    text
      .split('\n')[0]!
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this removes
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .slice(0, 200)
  );
}
