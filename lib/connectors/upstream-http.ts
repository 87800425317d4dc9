// The HTTP client of every request Gatehouse sends to a connector's upstream (catalog reads and forwarded
// calls): undici's request API behind the fetch signature the SDK's transport takes. The runtime's fetch
// implements the whole Fetch standard (Request and Response objects, web streams for every body, CORS
// bookkeeping) and measured about twice the CPU per upstream call of undici's request API, on the path
// every connector call takes (docs/performance.md). Bodies are bounded here, once, for every caller.
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { processSingleton } from '@/lib/server/process-singleton';
import { UpstreamError } from './upstream-errors';

/** Redirects are refused, as `redirect: 'error'` would: an upstream's URL is the one an instance admin set. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose answer has no body (RFC 9110 §6.4.1), which a Response must not be given one for. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

function agent(): Agent {
  // One connection pool per process for every upstream, kept alive between calls.
  return processSingleton('connectorHttpAgent', () => new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 }));
}

/**
 * A fetch that refuses an answer past `limit` bytes, so that an upstream cannot make Gatehouse buffer more
 * than that: a declared length past it is refused before the body is read; an answer without one (chunked,
 * a stream of events) is counted as it arrives. A failure to connect or to read is a TypeError "fetch
 * failed" whose cause is the network error, as the runtime's fetch reports it.
 */
export function cappedFetch(limit: number): typeof fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const signal = init.signal ?? undefined;
    const body = requestBody(init.body);
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(url, {
        method: (init.method ?? 'GET') as 'GET',
        headers: headerRecord(init.headers),
        body,
        signal,
        dispatcher: agent(),
      });
    } catch (error) {
      throw failed(error, signal);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const each of Array.isArray(value) ? value : [value]) if (each !== undefined) headers.append(name, each);
    }
    const status = answer.statusCode;
    if (REDIRECTS.has(status)) {
      discard(answer.body);
      throw new TypeError('fetch failed', { cause: new Error(`the upstream answered with a redirect (HTTP ${status}), which Gatehouse does not follow`) });
    }
    if (NO_BODY.has(status) || init.method === 'HEAD') {
      discard(answer.body);
      return new Response(null, { status, headers });
    }
    const length = headers.get('content-length');
    const declared = length !== null && /^\d{1,16}$/.test(length) ? Number(length) : null;
    if (declared !== null && declared > limit) {
      discard(answer.body);
      throw new UpstreamError(`the upstream's answer is larger than ${limit} bytes`, 'too_large');
    }
    if (declared !== null) {
      // A declared length within the limit bounds the body already (HTTP/1.1 framing, RFC 9112 §6.3): read
      // it whole, without a stream between the socket and the parser.
      try {
        return new BufferedResponse(await answer.body.arrayBuffer(), status, headers);
      } catch (error) {
        throw failed(error, signal);
      }
    }
    let seen = 0;
    const counted = (Readable.toWeb(answer.body) as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new UpstreamError(`the upstream's answer is larger than ${limit} bytes`, 'too_large'));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status, headers });
  };
}

/**
 * An answer whose whole body is already in memory (it declared its length, within the limit). The
 * runtime's Response would put the bytes behind a web stream that every read then goes through (about a
 * quarter of an SDK call's own CPU in a loop against a local upstream, docs/performance.md); this one
 * decodes them directly for text(), json(), arrayBuffer() and bytes(), as the runtime does (UTF-8, a BOM
 * dropped), and becomes a full Response with those bytes for anything else (body, blob(), clone()...).
 */
export class BufferedResponse extends Response {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  #full: Response | null = null;
  #used = false;

  constructor(bytes: ArrayBuffer, status: number, headers: Headers) {
    super(null, { status, headers });
    this.#bytes = new Uint8Array(bytes);
  }

  /** The runtime's Response for the same answer; once a fast read took the bytes, one with a body already read. */
  #asFull(): Response {
    if (!this.#full) {
      this.#full = new Response(this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
      if (this.#used) void this.#full.arrayBuffer();
    }
    return this.#full;
  }

  #take(): Uint8Array<ArrayBuffer> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#asFull().body;
  }
  override get bodyUsed(): boolean {
    return this.#full ? this.#full.bodyUsed : this.#used;
  }
  override async text(): Promise<string> {
    return this.#full ? this.#full.text() : new TextDecoder().decode(this.#take());
  }
  override async json(): Promise<unknown> {
    return this.#full ? this.#full.json() : JSON.parse(new TextDecoder().decode(this.#take()));
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#full ? this.#full.arrayBuffer() : this.#take().buffer;
  }
  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#full ? this.#full.bytes() : this.#take();
  }
  override blob(): Promise<Blob> {
    return this.#asFull().blob();
  }
  override formData(): Promise<FormData> {
    return this.#asFull().formData();
  }
  override clone(): Response {
    return this.#asFull().clone();
  }
}

/**
 * Request headers as the plain object undici takes, names in lower case, with `extra` set over them. A plain
 * object is copied as it is, without a Headers object between (one per request is what the SDK builds).
 */
export function headerRecord(headers: HeadersInit | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      record[name] = value;
    });
  } else if (Array.isArray(headers)) for (const [name, value] of headers) record[name!.toLowerCase()] = value!;
  else if (headers) for (const [name, value] of Object.entries(headers)) record[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(extra)) record[name.toLowerCase()] = value;
  return record;
}

/** Drops an answer's body unread; the stream's error on being destroyed unread is expected, not a failure. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** The SDK sends JSON-RPC messages as strings; nothing else is ever sent upstream. */
function requestBody(body: BodyInit | null | undefined): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('An upstream request body must be a string or bytes.');
}

/** An aborted request rejects with the signal's reason, as fetch does; a network failure as fetch reports one. */
function failed(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  if (error instanceof UpstreamError) return error;
  return new TypeError('fetch failed', { cause: error });
}
