// Reading a request body with a hard limit: the stream is read chunk by chunk and abandoned as soon as
// it passes the limit, whatever Content-Length said (or if there was none: chunked uploads).
//
// Reading a body waits on the client, so it never happens inside a database transaction
// (lib/db/transaction.ts): a handler that needs its body inside one works on a buffered request
// (`bufferRequest`), whose bytes are already in memory.
import { assertNoTransaction } from '@/lib/db/open-transaction';

// On globalThis: a request buffered by one bundle's copy of this module may be read by another's.
const holder = globalThis as unknown as { gatehouseBufferedBodies?: WeakMap<Request, Buffer> };
const buffered = (holder.gatehouseBufferedBodies ??= new WeakMap<Request, Buffer>());

export async function readLimitedBytes(request: Request, limit: number): Promise<Buffer | null> {
  const inMemory = buffered.get(request);
  if (inMemory) return inMemory.length > limit ? null : inMemory;
  assertNoTransaction('reading a request body');
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return null;
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw new RequestAbortedError(error);
    });
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function readLimitedBody(request: Request, limit: number): Promise<string | null> {
  const bytes = await readLimitedBytes(request, limit);
  return bytes === null ? null : bytes.toString('utf8');
}

/**
 * The request's body stopped arriving: its client went away mid-body (Node's "aborted", ECONNRESET) or
 * sent a broken stream. The client's doing, not the server's: named as the platform names an abort.
 */
export class RequestAbortedError extends Error {
  constructor(cause: unknown) {
    super('the client closed the connection before the request body arrived', { cause });
    this.name = 'AbortError';
  }
}

/** An abort: the request body's (above), or a request.signal's (a DOMException named AbortError). */
export function isRequestAborted(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * The request with its whole body read (at most `limit` bytes, else null): what follows reads it from
 * memory, so it may do so inside a transaction. GET and HEAD have no body to wait for.
 */
export async function bufferRequest(request: Request, limit: number): Promise<Request | null> {
  if (request.method === 'GET' || request.method === 'HEAD' || buffered.has(request)) return request;
  const bytes = await readLimitedBytes(request, limit);
  if (bytes === null) return null;
  return requestWithBody(request, bytes);
}

/** The same request with `body` (already in memory) as its body, buffered. */
export function requestWithBody(request: Request, body: Buffer | string, contentType?: string): Request {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const headers = new Headers(request.headers);
  if (contentType) headers.set('content-type', contentType);
  headers.delete('content-length');
  const copy = new Request(request.url, { method: request.method, headers, body: new Uint8Array(bytes) });
  buffered.set(copy, bytes);
  return copy;
}
