// Which failures mean "the database is unreachable" (503 with Retry-After) — and which only look alike:
// a client that goes away mid-body gets the same code from Node (ECONNRESET) as a broken database
// connection, and must not be taken for an outage.
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '@/lib/db/errors';
import { readLimitedBytes } from '@/lib/http/body';

/** What reading the body of a request whose client disconnected mid-body throws, on a real server. */
async function abortedBodyError(): Promise<unknown> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const failure = new Promise<unknown>((resolve) => {
      server.on('request', (incoming: IncomingMessage) => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            incoming.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
            incoming.on('end', () => controller.close());
            incoming.on('error', (error) => controller.error(error));
          },
        });
        const request = new Request('http://localhost/mcp', { method: 'POST', body, duplex: 'half' } as RequestInit);
        readLimitedBytes(request, 1024).then(() => resolve(null), resolve);
      });
    });
    const { port } = server.address() as AddressInfo;
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-length': '1000' } });
    outgoing.on('error', () => {});
    outgoing.write('{"jsonrpc":');
    setTimeout(() => outgoing.destroy(), 100);
    return await failure;
  } finally {
    server.close();
  }
}

describe('telling a database outage from other failures', () => {
  it('does not take a client that disconnected mid-body for an unreachable database', async () => {
    const error = await abortedBodyError();
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(false);
    // Node's own error for it, as it comes from the request stream: "aborted", ECONNRESET, no syscall.
    expect(isDatabaseUnavailable((error as Error).cause)).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))).toBe(false);
  });

  it('does not take an aborted request signal for an unreachable database', () => {
    const controller = new AbortController();
    controller.abort();
    expect(isDatabaseUnavailable(controller.signal.reason)).toBe(false);
    expect(isDatabaseUnavailable(new DOMException('This operation was aborted', 'AbortError'))).toBe(false);
  });

  it('takes a refused or broken database connection for one, however deeply wrapped', async () => {
    const client = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:1/test', connectionTimeoutMillis: 2_000 });
    const refused = await client.connect().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(new Error('query failed', { cause: refused }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read', errno: -104 }))).toBe(true);
    expect(isDatabaseUnavailable({ name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } })).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("Can't reach database server"), { code: 'P1001' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new TypeError('Cannot read properties of undefined'))).toBe(false);
  });
});
