// The server process dies or is stopped while it works (issue: reliability), on PostgreSQL.
//
// SIGKILL at a random moment, with consents, code exchanges and refreshes in flight, then a restart on the
// same database. Nothing is left half-made. From the schema (prisma/schema.prisma) and lib/grants/,
// a complete grant is all of: Gatehouse's `grants` row, the provider's `Grant` row in `oidc_models` (while
// live), a membership of its person in its org, its client, at least one scope, and its `consent.granted`
// audit event; a revoked grant has no provider rows left. A token or code row always belongs to a live,
// complete grant; an audit event about a grant names one that exists. And whatever a client was told is
// true after the restart: a consent it got a code for is a complete grant; a token response it received
// works (or its refresh token was rotated by a later refresh whose answer the kill swallowed) and is in
// the audit log.
//
// SIGTERM drains: requests in flight are answered, new connections are refused, every answered /mcp call
// has its call-log row, and the process exits with 143 (lib/server/shutdown.ts).
import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createPostgresDatabase, DATABASES, type PostgresDatabase } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, decide, openConsent, pkce, register, tokenRequest, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

const PEOPLE = ['member@acme.test', 'owner@acme.test'];
const WORKERS = 8;
const ROUNDS = 2;
const RATE_LIMITS = { MCP_RATE_LIMIT_PER_MINUTE: '1000000', REGISTRATION_RATE_LIMIT: '1000' };

/** What the clients were told before the kill. */
type Told = {
  /** Consents answered with a redirect carrying a code. */
  codes: { code: string; person: string }[];
  /** Token responses (200) received: from a code exchange or a refresh. */
  tokens: { tokens: Tokens; kind: 'token.issued' | 'token.refreshed' }[];
  /** The last refresh token each chain received. */
  lastRefreshTokens: string[];
  /** Anything that went wrong while the server was still up. */
  failures: string[];
};

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(DATABASES.includes('postgres'))('the server process killed or stopped (PostgreSQL)', () => {
  let server: RunningServer;
  let database: PostgresDatabase;
  let sql: pg.Client;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    server = await startServer({ database: 'postgres', postgres: database, seedPostgres: true, env: RATE_LIMITS });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await server?.stop();
    await database?.drop();
  });

  /** Connect, approve, exchange and refresh, over and over, from several clients at once, until the kill. */
  function workload(jars: Map<string, CookieJar>, killed: () => boolean): { told: Told; done: Promise<unknown> } {
    const told: Told = { codes: [], tokens: [], lastRefreshTokens: [], failures: [] };
    const url = server.url;
    const worker = async (index: number) => {
      const person = PEOPLE[index % PEOPLE.length]!;
      const chain = { last: '' };
      told.lastRefreshTokens.push('');
      const slot = told.lastRefreshTokens.length - 1;
      try {
        // Staggered, so that at any moment some workers approve while others exchange or refresh.
        await pause(index * 400);
        for (let flow = 0; !killed(); flow++) {
          // A new client each time: a second approval of one client would replace the first grant.
          const client = await register(url, { client_name: `Crash ${index}.${flow}`, redirect_uris: [`https://crash${index}.example/cb`] });
          const browser = new Browser(url);
          for (const [name, value] of jars.get(person)!.entries()) browser.jar.set(name, value);
          const { verifier, challenge } = pkce();
          const form = await openConsent(browser, authorizeUrl(url, { client, challenge }));
          const code = (await decide(browser, form, { allow: true })).searchParams.get('code');
          if (!code) throw new Error('the consent did not end with a code');
          told.codes.push({ code, person });
          const exchange = await tokenRequest(url, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: client.redirect_uris[0]!,
            client_id: client.client_id,
            code_verifier: verifier,
          });
          if (exchange.response.status !== 200) throw new Error(`exchange: ${exchange.response.status} ${JSON.stringify(exchange.body)}`);
          told.tokens.push({ tokens: exchange.body as unknown as Tokens, kind: 'token.issued' });
          chain.last = told.lastRefreshTokens[slot] = exchange.body.refresh_token!;
          for (let step = 0; step < 2 && !killed(); step++) {
            const refreshed = await tokenRequest(url, { grant_type: 'refresh_token', refresh_token: chain.last, client_id: client.client_id });
            if (refreshed.response.status !== 200) throw new Error(`refresh: ${refreshed.response.status} ${JSON.stringify(refreshed.body)}`);
            told.tokens.push({ tokens: refreshed.body as unknown as Tokens, kind: 'token.refreshed' });
            chain.last = told.lastRefreshTokens[slot] = refreshed.body.refresh_token!;
          }
        }
      } catch (error) {
        // After the kill every request fails; before it, nothing may.
        if (!killed()) told.failures.push(`worker ${index}: ${(error as Error).message}`);
      }
    };
    return { told, done: Promise.all(Array.from({ length: WORKERS }, (_unused, index) => worker(index))) };
  }

  /** The invariants of a complete store, each query listing what breaks it. */
  async function expectNothingHalfMade(round: number): Promise<void> {
    const violations: Record<string, string> = {
      'grant without membership, client, scopes or consent event': `
        SELECT g.id FROM grants g
        LEFT JOIN memberships m ON m.person_id = g.person_id AND m.org_id = g.org_id
        LEFT JOIN clients c ON c.client_id = g.client_id
        WHERE m.id IS NULL OR c.client_id IS NULL OR cardinality(g.scopes) = 0
           OR NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.type = 'consent.granted' AND a.grant_id = g.id)`,
      'live grant without the provider grant': `
        SELECT g.id FROM grants g WHERE g.revoked_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM oidc_models o WHERE o.model = 'Grant' AND o.id = g.id)`,
      'provider grant without a live grant': `
        SELECT o.id FROM oidc_models o WHERE o.model = 'Grant'
           AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.id = o.id AND g.revoked_at IS NULL)`,
      'token, code or replay row of a missing or revoked grant': `
        SELECT o.model || ' ' || o.id FROM oidc_models o WHERE o.grant_id IS NOT NULL AND o.model <> 'Grant'
           AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.id = o.grant_id AND g.revoked_at IS NULL)`,
      'token row without a grant': `
        SELECT o.model || ' ' || o.id FROM oidc_models o WHERE o.model IN ('AccessToken', 'RefreshToken', 'AuthorizationCode') AND o.grant_id IS NULL`,
      'revoked grant without its revocation event': `
        SELECT g.id FROM grants g WHERE g.revoked_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.type = 'grant.revoked' AND a.grant_id = g.id)`,
      'grant event naming a missing grant': `
        SELECT a.type || ' ' || a.grant_id FROM audit_events a WHERE a.grant_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.id = a.grant_id)`,
    };
    for (const [rule, query] of Object.entries(violations)) {
      const { rows } = await sql.query<Record<string, string>>(query);
      expect(
        rows.map((row) => Object.values(row)[0]),
        `round ${round}: ${rule}`,
      ).toEqual([]);
    }
  }

  async function expectWhatWasToldHolds(told: Told, round: number): Promise<void> {
    // Every consent answered with a code is a complete, live grant with its event.
    for (const { code } of told.codes) {
      const { rows } = await sql.query<{ grant_id: string | null; revoked_at: Date | null; events: number }>(
        `SELECT o.grant_id, g.revoked_at,
                (SELECT count(*)::int FROM audit_events a WHERE a.type = 'consent.granted' AND a.grant_id = o.grant_id) AS events
         FROM oidc_models o LEFT JOIN grants g ON g.id = o.grant_id
         WHERE o.model = 'AuthorizationCode' AND o.id = $1`,
        [sha256(code)],
      );
      expect(rows, `round ${round}: the code a consent returned is stored`).toHaveLength(1);
      expect(rows[0], `round ${round}: the grant behind a code the client got`).toMatchObject({ grant_id: expect.any(String), revoked_at: null, events: 1 });
    }

    // Every token response received: its access token works, and it is in the audit log.
    const received = new Map<string, { issued: number; refreshed: number }>();
    for (const { tokens, kind } of told.tokens) {
      const reply = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
      expect(reply.status, `round ${round}: an access token received before the kill`).toBe(200);
      const { rows } = await sql.query<{ grant_id: string }>("SELECT grant_id FROM oidc_models WHERE model = 'AccessToken' AND id = $1", [sha256(tokens.access_token)]);
      const counts = received.get(rows[0]!.grant_id) ?? { issued: 0, refreshed: 0 };
      counts[kind === 'token.issued' ? 'issued' : 'refreshed']++;
      received.set(rows[0]!.grant_id, counts);
    }
    for (const [grantId, counts] of received) {
      const { rows } = await sql.query<{ type: string; n: number }>(
        "SELECT type, count(*)::int AS n FROM audit_events WHERE grant_id = $1 AND type IN ('token.issued', 'token.refreshed') GROUP BY type",
        [grantId],
      );
      const logged = Object.fromEntries(rows.map((row) => [row.type, row.n]));
      expect(logged['token.issued'] ?? 0, `round ${round}: issuance events of grant ${grantId}`).toBeGreaterThanOrEqual(counts.issued);
      expect(logged['token.refreshed'] ?? 0, `round ${round}: refresh events of grant ${grantId}`).toBeGreaterThanOrEqual(counts.refreshed);
    }

    // The last refresh token of each chain still rotates — unless a refresh the kill cut short already
    // rotated it, and then its successor is there, unused.
    for (const refreshToken of told.lastRefreshTokens.filter(Boolean)) {
      const { rows } = await sql.query<{ grant_id: string; consumed_at: Date | null; successors: number }>(
        `SELECT o.grant_id, o.consumed_at,
                (SELECT count(*)::int FROM oidc_models n WHERE n.model = 'RefreshToken' AND n.grant_id = o.grant_id AND n.consumed_at IS NULL) AS successors
         FROM oidc_models o WHERE o.model = 'RefreshToken' AND o.id = $1`,
        [sha256(refreshToken)],
      );
      expect(rows, `round ${round}: a refresh token received before the kill is stored`).toHaveLength(1);
      if (rows[0]!.consumed_at) {
        expect(rows[0]!.successors, `round ${round}: a rotated refresh token's successor`).toBe(1);
        continue;
      }
      const clientId = (await sql.query<{ client_id: string }>('SELECT client_id FROM grants WHERE id = $1', [rows[0]!.grant_id])).rows[0]!.client_id;
      const { response, body } = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
      expect(response.status, `round ${round}: refresh after the restart: ${JSON.stringify(body)}`).toBe(200);
    }
  }

  it('SIGKILL during consents, exchanges and refreshes leaves every grant and token whole, and every acknowledged event logged', async () => {
    const jars = new Map<string, CookieJar>();
    for (const email of PEOPLE) jars.set(email, (await signIn(server.url, email, TEST_DEMO_PASSWORD)).jar);

    for (let round = 1; round <= ROUNDS; round++) {
      let killedAt = 0;
      const startedAt = Date.now();
      const { told, done } = workload(jars, () => killedAt > 0);
      // A random moment once the work is well under way: every worker has been through a whole flow and
      // started another, so approvals, exchanges and refreshes are all happening.
      const deadline = Date.now() + 60_000;
      const refreshes = () => told.tokens.filter((t) => t.kind === 'token.refreshed').length;
      while (told.failures.length === 0 && (told.codes.length < WORKERS + 2 || refreshes() < WORKERS) && Date.now() < deadline) {
        await pause(50);
      }
      await pause(Math.random() * 1_500);
      killedAt = Date.now();
      const exit = await server.signal('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await done;

      expect(told.failures, `round ${round}: failures before the kill`).toEqual([]);
      expect(told.codes.length, `round ${round}: consents before the kill`).toBeGreaterThan(0);
      expect(told.tokens.length, `round ${round}: token responses before the kill`).toBeGreaterThan(0);

      console.log(`round ${round}: killed after ${told.codes.length} consents, ${told.tokens.length} token responses, ${Date.now() - startedAt} ms`);
      server = await startServer(server.restartOptions);
      console.log(`round ${round}: restarted, ${Date.now() - startedAt} ms`);
      await expectNothingHalfMade(round);
      await expectWhatWasToldHolds(told, round);
      console.log(`round ${round}: checked, ${Date.now() - startedAt} ms`);
      // A session cookie outlives the restart (the keys are in the database): the next round reuses them.
    }
    // The kills did land mid-write at least sometimes is not something the test can force; what it can
    // require is that the work before them was real and varied.
    const { rows } = await sql.query<{ type: string }>("SELECT DISTINCT type FROM audit_events WHERE type IN ('consent.granted', 'token.issued', 'token.refreshed')");
    expect(rows.map((row) => row.type).sort()).toEqual(['consent.granted', 'token.issued', 'token.refreshed']);
  }, 150_000);

  it('SIGTERM answers the requests in flight, refuses new connections, writes their call-log rows and exits 143', async () => {
    const client = await register(server.url, { client_name: 'Drain', redirect_uris: ['https://drain.example/cb'] });
    const { tokens } = await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD });
    const grantId = (await sql.query<{ grant_id: string }>("SELECT grant_id FROM oidc_models WHERE model = 'AccessToken' AND id = $1", [sha256(tokens.access_token)])).rows[0]!.grant_id;

    // Answered before the signal, most of them still in the call log's buffer when it arrives.
    const answered = await Promise.all(Array.from({ length: 10 }, () => postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }))));
    expect(answered.map((reply) => reply.status)).toEqual(Array(10).fill(200));

    // An idle keep-alive connection, as a reverse proxy keeps them: it carried one answer before the signal.
    const proxyConnection = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify(rpc('tools/call', { name: 'whoami', arguments: {} }));
    expect((await postOn(proxyConnection, server.port, tokens.access_token, body)).status).toBe(200);

    // In flight when the signal arrives: headers and half the body sent, the rest after it.
    const inFlight = Array.from({ length: 5 }, () => slowPost(server.port, tokens.access_token, body));
    await Promise.all(inFlight.map((call) => call.headersSent));
    await pause(300);

    const exited = server.signal('SIGTERM');
    let exitedAt = 0;
    void exited.then(() => (exitedAt = Date.now()));
    await pause(300);
    expect(exitedAt, 'the process waits for the requests in flight').toBe(0);
    const refused = await fetch(`http://127.0.0.1:${server.port}/healthz`).then(
      (response) => `answered ${response.status}`,
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
    );
    expect(refused, 'a new connection once draining').toBe('ECONNREFUSED');
    // The idle connection was left open: a request a proxy sends on it now is answered, not cut, and the
    // answer closes the connection so that the proxy does not use it again.
    const onIdle = await postOn(proxyConnection, server.port, tokens.access_token, body);
    expect(onIdle, 'a request on a connection that was idle when the signal came').toMatchObject({ status: 200, connection: 'close' });
    proxyConnection.destroy();

    for (const call of inFlight) call.finish();
    const replies = await Promise.all(inFlight.map((call) => call.reply));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ jsonrpc: '2.0', result: expect.any(Object) });
    }
    expect(await exited).toEqual({ code: 143, signal: null });

    const { rows } = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM mcp_calls WHERE grant_id = $1 AND http_status = 200 AND tool_name = 'whoami'", [grantId]);
    expect(rows[0]!.n, 'call-log rows of the answered calls').toBe(answered.length + inFlight.length + 2);

    server = await startServer(server.restartOptions); // for afterAll, and: it starts again cleanly
    expect((await postMcp(server.url, tokens.access_token, rpc('ping'))).status).toBe(200);
  }, 60_000);
});

/** A POST /mcp on the agent's connection; a connection cut before the answer is status 0. */
function postOn(agent: Agent, port: number, token: string, body: string): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve) => {
    const request = httpRequest({
      agent,
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    });
    request.on('error', () => resolve({ status: 0, connection: undefined }));
    request.end(body);
  });
}

/** A POST /mcp whose body is sent in two halves: the second only when `finish()` is called. */
function slowPost(port: number, token: string, body: string) {
  let finish = () => {};
  let headersSent = () => {};
  const sent = new Promise<void>((resolve) => (headersSent = resolve));
  // Never rejects: a connection cut before the answer is an answer of status 0.
  const reply = new Promise<{ status: number; text: string }>((resolve) => {
    const reject = (error: Error) => resolve({ status: 0, text: error.message });
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'content-length': Buffer.byteLength(body),
      },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    const half = Math.floor(body.length / 2);
    request.write(body.slice(0, half), () => headersSent());
    finish = () => request.end(body.slice(half));
  });
  return { reply, headersSent: sent, finish: () => finish() };
}

// The process that reads the server's log goes away (npm start killed, a closed pipe): every write fails
// with EPIPE. The server stops as on SIGTERM (lib/server/shutdown.ts) instead of spinning on logging its
// own failure to log, which held a core at 100 % and stopped it answering.
describe('the server whose log pipe closes', () => {
  it('stops with 141 once it cannot write its log, instead of spinning', async () => {
    const server = await startServer({ database: 'embedded' });
    try {
      const exited = server.closeOutput();
      // A request for a server action that does not exist: Next.js logs it at once.
      for (let attempt = 0; attempt < 3; attempt++) {
        await fetch(`${server.url}/login`, {
          method: 'POST',
          headers: { 'next-action': 'f'.repeat(42), 'content-type': 'text/plain;charset=UTF-8' },
          body: '[]',
          signal: AbortSignal.timeout(5_000),
        }).catch(() => null);
      }
      const outcome = await Promise.race([exited, pause(20_000).then(() => 'still running' as const)]);
      expect(outcome).toEqual({ code: 141, signal: null });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
