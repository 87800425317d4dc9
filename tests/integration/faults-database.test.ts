// PostgreSQL goes away under a running server and comes back (issue: reliability). The server reaches its
// database through a TCP proxy the test cuts — open connections reset, new ones refused — so only this
// server loses it. While it is gone: /mcp answers 503 with a JSON-RPC error, the OAuth endpoints 503
// temporarily_unavailable (not the provider's 500 server_error), /readyz 503, all with Retry-After and
// none of them hanging; the process stays up. When it is back, everything works again by itself.
// And on both databases: clients that send their request bodies slowly hold no database connection.
import { connect as connectSocket, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, DATABASES, type PostgresDatabase } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, clientAuthentication, connect, pkce, register, tokenRequest, type RegisteredClient, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/** Every request in this file must be answered within this: an outage is no reason to hang. */
const ANSWER_WITHIN_MS = 12_000;

describe.runIf(DATABASES.includes('postgres'))('PostgreSQL down under a running server', () => {
  let proxy: TcpProxy;
  let database: PostgresDatabase;
  let server: RunningServer;
  let client: RegisteredClient;
  let tokens: Tokens;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const direct = new URL(database.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    server = await startServer({ database: 'postgres', postgres: database, seedPostgres: true, env: { DATABASE_URL: proxied.toString() } });
    client = await register(server.url, { client_name: 'Outage Test', redirect_uris: ['https://outage.example/cb'] });
    tokens = (await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD })).tokens;
  });
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  const within = () => AbortSignal.timeout(ANSWER_WITHIN_MS);
  const whoami = () => postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
  const refresh = () => tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }, clientAuthentication(client));

  it('answers 503 everywhere it needs the database, keeps the process up, and recovers by itself', async () => {
    expect((await whoami()).status).toBe(200);

    proxy.cut();

    const mcp = await whoami();
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe('5');
    expect(mcp.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: expect.stringMatching(/database/) } });

    const token = await refresh();
    expect(token.response.status).toBe(503);
    expect(token.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(token.response.headers.get('retry-after')).toBe('5');

    const registration = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'During the outage', redirect_uris: ['https://outage.example/cb2'] }),
      signal: within(),
    });
    expect(registration.status).toBe(503);
    expect(await registration.json()).toMatchObject({ error: 'temporarily_unavailable' });

    const { challenge } = pkce();
    const authorize = await fetch(authorizeUrl(server.url, { client, challenge }), { redirect: 'manual', signal: within() });
    expect(authorize.status).toBe(503);

    const ready = await fetch(`${server.url}/readyz`, { signal: within() });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable' });
    // Liveness does not depend on the database: the process is up and answering.
    expect((await fetch(`${server.url}/healthz`, { signal: within() })).status).toBe(200);
    // Discovery needs no database either.
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`, { signal: within() })).status).toBe(200);

    proxy.restore();

    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await whoami()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status, 'whoami works again once the database is back').toBe(200);
    expect((await fetch(`${server.url}/readyz`, { signal: within() })).status).toBe(200);
    // The refresh token was never spent during the outage: it still rotates.
    const after = await refresh();
    expect(after.response.status, JSON.stringify(after.body)).toBe(200);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  });
});

/**
 * A client that announces a body and sends it slowly must cost Gatehouse a socket, never a database
 * connection: every body is read before a transaction opens. Held open on the embedded database (one
 * connection) or in numbers past PostgreSQL's pool (10), such requests used to stall every other request.
 */
describe.each(DATABASES)('slow request bodies on the %s database', (kind) => {
  let server: RunningServer;
  let client: RegisteredClient;
  let tokens: Tokens;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server = await startServer({ database: kind });
    client = await register(server.url, { client_name: 'Slow Body Test', redirect_uris: ['https://slow.example/cb'] });
    tokens = (await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD })).tokens;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.stop();
  });

  /** Sends the request line, headers announcing 1,000 bytes, and one byte of body; then nothing. */
  function holdOpen(method: string, path: string, contentType: string, headers: Record<string, string> = {}): Promise<void> {
    const { port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connectSocket({ host: '127.0.0.1', port: Number(port) }, () => {
        const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Content-Type: ${contentType}`, 'Content-Length: 1000'];
        for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n{`, () => resolve());
      });
      socket.on('error', reject);
      sockets.push(socket);
    });
  }

  it('holds no database connection while a request body is still arriving: /readyz, /mcp and tokens keep answering', async () => {
    const form = 'application/x-www-form-urlencoded';
    const management = { Authorization: `Bearer ${client.registration_access_token}` };
    await Promise.all([
      // More than the PostgreSQL pool's 10 connections, of the request the review found first...
      ...Array.from({ length: 12 }, (_, i) => holdOpen('DELETE', `/oauth/register/anything-${i}`, 'application/json')),
      // ...and every other OAuth endpoint that takes a body.
      ...Array.from({ length: 2 }, () => [
        holdOpen('DELETE', `/oauth/register/${encodeURIComponent(client.client_id)}`, 'application/json', management),
        holdOpen('PUT', `/oauth/register/${encodeURIComponent(client.client_id)}`, 'application/json', management),
        holdOpen('POST', '/oauth/register', 'application/json'),
        holdOpen('POST', '/oauth/token', form),
        holdOpen('POST', '/oauth/revoke', form),
        holdOpen('POST', '/oauth/introspect', form),
      ]).flat(),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the server has them all by now

    const timed = async <T>(what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      const started = Date.now();
      const result = await call(AbortSignal.timeout(10_000)).catch((error: Error) => {
        throw new Error(`${what}: no answer within 10 s (${error.message})`);
      });
      expect(Date.now() - started, `${what} answered in ${Date.now() - started} ms`).toBeLessThan(3_000);
      return result;
    };
    for (let round = 0; round < 3; round++) {
      const ready = await timed('/readyz', (signal) => fetch(`${server.url}/readyz`, { signal }));
      expect(ready.status).toBe(200);
      const whoami = await timed('/mcp', () => postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} })));
      expect(whoami.status).toBe(200);
    }
    const refreshed = await timed('/oauth/token', () => tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }));
    expect(refreshed.response.status, JSON.stringify(refreshed.body)).toBe(200);
    const other = await timed('/oauth/register', () => register(server.url, { client_name: 'Meanwhile', redirect_uris: ['https://meanwhile.example/cb'] }));
    const deleted = await timed('DELETE /oauth/register/{id}', (signal) =>
      fetch(other.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${other.registration_access_token}` }, signal }),
    );
    expect(deleted.status).toBe(204);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  }, 60_000);
});
