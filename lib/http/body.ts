// Reading a request body with a hard limit: the stream is read chunk by chunk and abandoned as soon as
// it passes the limit, whatever Content-Length said (or if there was none: chunked uploads).
export async function readLimitedBytes(request: Request, limit: number): Promise<Buffer | null> {
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
