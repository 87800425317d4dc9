// Talking to a connector's upstream MCP server (docs/connectors.md) through the official SDK's client over
// Streamable HTTP, at whatever revision that client negotiates. Gatehouse declares no client capabilities
// upstream, and sends only its own credential for the connector: never anything of the caller's (MCP
// 2025-11-25, Basic › Authorization: token passthrough is forbidden).
//
// Every read here is a network read: none may run while a database transaction is held
// (assertNoTransaction), so a slow upstream never holds a database connection.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { assertNoTransaction } from '@/lib/db/open-transaction';

/** Where and how to reach an upstream. */
export type UpstreamTarget = { url: string; headers: Record<string, string>; timeoutMs: number };

/** Why an upstream could not be read, in words for the admin (never its credential). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'too_large' | 'malformed' | 'refused',
  ) {
    super(message);
  }
}

/** The most bytes of one upstream answer Gatehouse reads for a catalog (a tools/list page). */
export const CATALOG_PAGE_BYTES = 4 * 1024 * 1024;
/** The most tools/list pages read in one refresh: an upstream that pages forever is cut off. */
const MAX_PAGES = 50;

// tools/list as the upstream sent it: each entry is checked by definitions.ts, one at a time, so that one
// bad tool is named instead of failing the whole catalog.
const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().max(1024).optional() });

/**
 * A fetch that refuses an answer past `limit` bytes while it streams in (declared or not), so that an
 * upstream cannot make Gatehouse buffer more than that.
 */
export function cappedFetch(limit: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: 'error' });
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > limit) {
      await response.body?.cancel();
      throw new UpstreamError(`the upstream's answer is larger than ${limit} bytes`, 'too_large');
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new UpstreamError(`the upstream's answer is larger than ${limit} bytes`, 'too_large'));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Opens an SDK client to the upstream; the caller closes it. */
export async function openUpstream(target: UpstreamTarget, limit = CATALOG_PAGE_BYTES): Promise<Client> {
  assertNoTransaction('an upstream MCP call');
  const client = new Client({ name: 'gatehouse', version: '1' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers }, fetch: cappedFetch(limit) });
  try {
    await client.connect(transport, { timeout: target.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw upstreamError(error, target);
  }
  return client;
}

/** Every page of the upstream's tools/list, as sent (each entry unchecked). */
export async function listUpstreamTools(target: UpstreamTarget): Promise<unknown[]> {
  const client = await openUpstream(target);
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
  const message = cause.message.slice(0, 300);
  if (/timed? ?out|RequestTimeout/i.test(message) || (cause as { code?: unknown }).code === -32001) {
    return new UpstreamError(`the upstream did not answer within ${target.timeoutMs} ms`, 'timeout');
  }
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|certificate|TLS|socket/i.test(`${message} ${String(nested)}`)) {
    return new UpstreamError(`the upstream at ${new URL(target.url).origin} could not be reached (${firstLine(String(nested ?? message))})`, 'unreachable');
  }
  if (/HTTP 40[13]|Unauthorized|Forbidden/i.test(message)) return new UpstreamError(`the upstream refused Gatehouse's credential (${firstLine(message)})`, 'refused');
  return new UpstreamError(`the upstream's answer could not be used (${firstLine(message)})`, 'malformed');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 200);
}
