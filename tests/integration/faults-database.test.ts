// PostgreSQL goes away under a running server and comes back (issue: reliability). The server reaches its
// database through a TCP proxy the test cuts — open connections reset, new ones refused — so only this
// server loses it. While it is gone: /mcp answers 503 with a JSON-RPC error, the OAuth endpoints 503
// temporarily_unavailable (not the provider's 500 server_error), /readyz 503, all with Retry-After and
// none of them hanging; the process stays up. When it is back, everything works again by itself.
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
  const refresh = () =>
    tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }, clientAuthentication(client));

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
