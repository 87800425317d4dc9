// The upstream HTTP client (lib/connectors/upstream-http.ts) against a real local HTTP server: answers are
// bounded by their declared length or counted as they stream, redirects are never followed, and network
// failures and aborts are reported as the runtime's fetch reports them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '@/lib/connectors/upstream-errors';
import { BufferedResponse, cappedFetch, headerRecord } from '@/lib/connectors/upstream-http';

const LIMIT = 1000;
let server: Server;
let base: string;
const seen: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];

const routes: Record<string, (res: ServerResponse) => void> = {
  '/json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true })),
  '/declared-too-large': (res) => res.writeHead(200, { 'content-length': String(LIMIT + 1) }).end('x'.repeat(LIMIT + 1)),
  '/chunked-too-large': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('x'.repeat(LIMIT / 2));
    setTimeout(() => res.end('y'.repeat(LIMIT)), 20);
  },
  '/chunked-within': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n');
    setTimeout(() => res.end('data: two\n\n'), 20);
  },
  '/redirect': (res) => res.writeHead(307, { location: '/json' }).end(),
  '/empty': (res) => res.writeHead(202).end(),
  '/no-content': (res) => res.writeHead(204).end(),
  '/cookies': (res) =>
    res
      .writeHead(200, [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['content-length', '0'],
      ])
      .end(),
  '/slow': () => {},
  '/cut-off': (res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, headers: req.headers, body });
      routes[req.url!]!(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fetchCapped = cappedFetch(LIMIT);

describe('upstream HTTP client', () => {
  it('sends the method, headers and body it is given, and answers a Response the SDK can read', async () => {
    const response = await fetchCapped(new URL(`${base}/json`), { method: 'POST', headers: { 'content-type': 'application/json', 'x-one': 'a' }, body: '{"jsonrpc":"2.0"}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"jsonrpc":"2.0"}', headers: { 'x-one': 'a' } });
  });

  it('refuses a declared length past the limit before reading the body', async () => {
    await expect(fetchCapped(`${base}/declared-too-large`)).rejects.toSatisfy((error) => error instanceof UpstreamError && error.kind === 'too_large');
  });

  it('counts an answer without a declared length as it streams, and fails its read past the limit', async () => {
    const response = await fetchCapped(`${base}/chunked-too-large`);
    await expect(response.text()).rejects.toSatisfy((error) => error instanceof UpstreamError && error.kind === 'too_large');
    const within = await fetchCapped(`${base}/chunked-within`);
    expect(await within.text()).toBe('data: one\n\ndata: two\n\n');
  });

  it('never follows a redirect', async () => {
    const before = seen.length;
    await expect(fetchCapped(`${base}/redirect`)).rejects.toSatisfy((error) => error instanceof TypeError && /redirect/.test(String((error as Error).cause)));
    expect(seen.slice(before).map((entry) => entry.method)).toEqual(['GET']); // the redirect's target was not asked
  });

  it('answers statuses without a body with an empty Response, and keeps repeated headers', async () => {
    expect((await fetchCapped(`${base}/empty`, { method: 'POST', body: '{}' })).status).toBe(202);
    const none = await fetchCapped(`${base}/no-content`);
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
    expect((await fetchCapped(`${base}/cookies`)).headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('reports a refused connection and an answer cut off as "fetch failed" with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchCapped(`http://127.0.0.1:${port}/`)).rejects.toSatisfy((error) => error instanceof TypeError && /ECONNREFUSED/.test(String((error as Error).cause)));
    await expect(fetchCapped(`${base}/cut-off`)).rejects.toSatisfy((error) => error instanceof TypeError && (error as Error).message === 'fetch failed');
  });

  it('rejects with the abort reason when the signal is aborted', async () => {
    const controller = new AbortController();
    const pending = fetchCapped(`${base}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller went away')), 20);
    await expect(pending).rejects.toThrow('caller went away');
  });

  it('sends headers given in any form once each, names in lower case, the extra ones over them', async () => {
    const extra = { 'Gatehouse-Identity': 'assertion', authorization: 'Bearer new' };
    const expected = { accept: 'application/json', authorization: 'Bearer new', 'gatehouse-identity': 'assertion', 'x-api-key': 'k' };
    for (const given of [
      new Headers({ Accept: 'application/json', Authorization: 'Bearer old', 'X-Api-Key': 'k' }),
      [
        ['Accept', 'application/json'],
        ['AUTHORIZATION', 'Bearer old'],
        ['x-api-key', 'k'],
      ] as [string, string][],
      { Accept: 'application/json', Authorization: 'Bearer old', 'x-API-key': 'k' },
    ]) {
      expect(headerRecord(given, extra)).toEqual(expected);
    }
    expect(headerRecord(undefined)).toEqual({});
  });

  it('reads an answer of a declared length as the runtime’s Response reads the same bytes, once', async () => {
    const bytes = () => new TextEncoder().encode('\ufeff{"text":"é ✓"}').buffer;
    const headers = () => new Headers({ 'content-type': 'application/json', 'x-extra': 'kept' });
    const reads = ['text', 'json', 'arrayBuffer', 'bytes', 'blob', 'body'] as const;
    const read = async (response: Response, how: (typeof reads)[number]) => {
      if (how === 'body') return new Response(response.body).text();
      const value = await response[how]();
      return value instanceof Blob ? value.text() : value instanceof ArrayBuffer ? [...new Uint8Array(value)] : value instanceof Uint8Array ? [...value] : value;
    };
    for (const how of reads) {
      const buffered = new BufferedResponse(bytes(), 200, headers());
      const runtime = new Response(bytes(), { status: 200, headers: headers() });
      expect(buffered).toBeInstanceOf(Response);
      expect([buffered.status, buffered.ok, buffered.headers.get('x-extra')]).toEqual([200, true, 'kept']);
      expect(await read(buffered, how), how).toEqual(await read(runtime, how));
      expect(buffered.bodyUsed, how).toBe(true);
      // A body is read once, whichever way: then every read and a clone fail, as the runtime's do.
      for (const again of ['text', 'json', 'arrayBuffer'] as const) await expect(buffered[again](), `${how} then ${again}`).rejects.toThrow(TypeError);
      expect(() => buffered.clone(), `${how} then clone`).toThrow(TypeError);
    }
    const original = new BufferedResponse(bytes(), 201, headers());
    const copy = original.clone();
    expect([copy.status, await copy.json(), await original.json()]).toEqual([201, { text: 'é ✓' }, { text: 'é ✓' }]);
  });

  it('refuses a body that is not a string or bytes', async () => {
    await expect(fetchCapped(`${base}/json`, { method: 'POST', body: new URLSearchParams('a=1') })).rejects.toThrow(/string or bytes/);
  });
});
