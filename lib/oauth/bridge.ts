// Runs a Node (req, res) handler — oidc-provider's Koa app — for a Web Request and returns a Web
// Response, so the provider lives in ordinary Next.js route handlers instead of a custom server.
//
// The provider builds every URL it prints from the request's host and protocol. The bridge presents it
// with PUBLIC_URL's host and scheme instead of whatever the client sent, so a forged Host or
// X-Forwarded-* header can never change an issuer, an endpoint or a redirect.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { RETRY_AFTER_SECONDS } from '@/lib/db/errors';
import { readLimitedBytes } from '@/lib/http/body';
import { PayloadTooLarge } from './errors';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

export type BridgeOptions = {
  /** The public origin the handler must believe it is served at. */
  publicUrl: string;
  /** The client's address, as Gatehouse determined it (see lib/http/client-address.ts). */
  clientAddress: string;
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

/** No provider endpoint takes more than a registration's worth of body. */
const MAX_BODY_BYTES = 64 * 1024;

export async function runNodeHandler(handler: NodeHandler, request: Request, options: BridgeOptions): Promise<Response> {
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : await readLimitedBytes(request, MAX_BODY_BYTES);
  // Rendered by the caller's catch (handle-request.ts), like every refusal of Gatehouse's own.
  if (body === null && request.method !== 'GET' && request.method !== 'HEAD') throw new PayloadTooLarge('invalid_request', 'the request body is too large');
  const req = buildRequest(request, body, options);
  const res = new ServerResponse(req);

  const done = new Promise<Response>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
      if (typeof encoding === 'function') encoding();
      else if (typeof callback === 'function') callback();
      return true;
    }) as ServerResponse['write'];
    res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      if (typeof chunk === 'function') callback = chunk;
      else if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
      if (typeof encoding === 'function') callback = encoding;
      (res as unknown as { finished: boolean }).finished = true;
      try {
        resolve(toResponse(res, Buffer.concat(chunks), request.method));
      } catch (error) {
        reject(error);
      }
      res.emit('finish');
      if (typeof callback === 'function') callback();
      return res;
    }) as ServerResponse['end'];
  });

  // Koa answers its own errors (a 500 through res.end); a rejection here means it could not even do that.
  return Promise.race([done, Promise.resolve(handler(req, res)).then(() => done)]);
}

/**
 * A Node request/response pair for provider APIs that take (req, res) without answering through them
 * (interactionDetails, interactionResult, Session.get). The request's body is not read.
 */
export function nodePair(request: Request, options: BridgeOptions): { req: IncomingMessage; res: ServerResponse } {
  const req = buildRequest(request, null, options);
  return { req, res: new ServerResponse(req) };
}

function buildRequest(request: Request, body: Buffer | null, options: BridgeOptions): IncomingMessage {
  const publicUrl = new URL(options.publicUrl);
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: options.clientAddress });
  Object.defineProperty(socket, 'encrypted', { value: publicUrl.protocol === 'https:' });

  const req = new IncomingMessage(socket);
  const url = new URL(request.url);
  req.method = request.method;
  req.url = `${url.pathname}${url.search}`;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (name.startsWith('x-forwarded-') || name === 'forwarded') return;
    headers[name] = value;
  });
  headers.host = publicUrl.host;
  if (body) headers['content-length'] = String(body.length);
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  if (body) req.push(body);
  req.push(null);
  return req;
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

function toResponse(res: ServerResponse, body: Buffer, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
  }
  const status = res.statusCode;
  // The provider's 503 is a database outage (unavailable.ts): say when to come back.
  if (status === 503 && !headers.has('retry-after')) headers.set('Retry-After', String(RETRY_AFTER_SECONDS));
  const noBody = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  return new Response(noBody ? null : new Uint8Array(body), {
    status,
    statusText: res.statusMessage,
    headers,
  });
}
