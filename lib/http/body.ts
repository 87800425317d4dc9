// Reading a request body with a hard limit: the stream is read chunk by chunk and abandoned as soon as
// it passes the limit, whatever Content-Length said (or if there was none: chunked uploads).
//
// Reading a body waits on the client, so it never happens inside a database transaction
// (lib/db/transaction.ts): a handler that needs its body inside one works on a buffered request
// (`bufferRequest`), whose bytes are already in memory.
import { assertNoTransaction } from '@/lib/db/open-transaction';
import { processSingleton } from '@/lib/server/process-singleton';

// One per process: a request buffered by one bundle's copy of this module may be read by another's.
const buffered = processSingleton('bufferedBodies', () => new WeakMap<Request, Buffer>());

// A refused body is then read on and dropped for a moment, up to DISCARD_LIMITS, before the stream is
// cancelled: cancelling it closes the connection, and a connection closed while the client is still
// sending is reset, which can destroy the 413 answer before the client reads it (the "lingering close"
// that HTTP servers do, RFC 9112 §9.6). Nothing of it is kept.
const DISCARD_LIMITS = { bytes: 8 * 1024 * 1024, ms: 5_000 };

export async function readLimitedBytes(request: Request, limit: number): Promise<Buffer | null> {
  const inMemory = buffered.get(request);
  if (inMemory) return inMemory.length > limit ? null : inMemory;
  assertNoTransaction('reading a request body');
  const declared = Number(request.headers.get('content-length') ?? '0');
  const reader = request.body?.getReader();
  if (declared > limit) {
    if (reader) void discardRest(reader, 0);
    return null;
  }
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw new RequestAbortedError(error);
    });
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      void discardRest(reader, received);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, received: number): Promise<void> {
  // Cancelling ends a read that is still waiting (a client that stopped sending): it then reports done.
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DISCARD_LIMITS.ms);
  try {
    for (let dropped = received; dropped <= DISCARD_LIMITS.bytes; ) {
      const { done, value } = await reader.read();
      if (done) break;
      dropped += value.byteLength;
    }
  } catch {
    // the client went away: nothing left to drop
  }
  clearTimeout(timer);
  await reader.cancel().catch(() => {});
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

/** What a form or JSON body may hold: bytes, and fields (form fields, or a JSON object's own keys). */
export type BodyLimits = { bytes: number; fields: number };

/** A body within its limits (with the object a JSON body parsed to), or why not. */
export type BoundedBody = { ok: true; bytes: Buffer; json?: Record<string, unknown> } | { ok: false; status: 400 | 413; description: string };

/**
 * Reads a body within `limits`: past the bytes (declared or streamed) or the fields, 413 (RFC 9110
 * §15.5.14) before anything parses it; a JSON body that is not an object, 400. A body of another type is
 * only held to the byte limit. The fields are counted on the text, before a parser builds anything.
 */
export async function readBoundedBody(request: Request, limits: BodyLimits): Promise<BoundedBody> {
  const bytes = await readLimitedBytes(request, limits.bytes);
  if (bytes === null) return { ok: false, status: 413, description: `The request body may be at most ${limits.bytes} bytes.` };
  const tooManyFields = { ok: false, status: 413, description: `The request body may have at most ${limits.fields} fields.` } as const;
  // Matched as loosely as parsers match it (next-auth looks for the type anywhere in the header, JSON
  // first), so that no body reaches a parser that was not checked as that parser will read it.
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  if (type.includes('application/json')) {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return { ok: false, status: 400, description: 'The request body is not valid JSON.' };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, status: 400, description: 'The request body must be a JSON object.' };
    if (Object.keys(value).length > limits.fields) return tooManyFields;
    return { ok: true, bytes, json: value as Record<string, unknown> };
  } else if (type.includes('application/x-www-form-urlencoded')) {
    if (countFormFields(bytes.toString('latin1')) > limits.fields) return tooManyFields;
  }
  return { ok: true, bytes };
}

/** The fields URLSearchParams would find in `text`: `&`-separated, empty ones skipped. */
export function countFormFields(text: string): number {
  let fields = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('&', start);
    const stop = end === -1 ? text.length : end;
    if (stop > start) fields++;
    if (end === -1) return fields;
    start = end + 1;
  }
}
