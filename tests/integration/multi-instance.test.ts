// Several instances sharing PostgreSQL and Redis behave as one (docs/protocol.md §6, issue "Done when"): they start
// together, honour each other's tokens, share the rate-limit budget and the refresh replay window, see
// each other's revocations at once, and only one of them sweeps. When Redis goes away, /mcp keeps
// answering and each instance counts budgets on its own (docs/operations.md, "Several instances").
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '@/lib/db/migrate';
import { SWEEPER_LOCK_KEY } from '@/lib/oauth/sweeper';
import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type PostgresDatabase } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, tokenRequest } from '../helpers/oauth';
import { freePort, startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const REDIS = process.env.TEST_REDIS_URL;
const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sweeps a server has logged, with their counts. */
function sweeps(server: RunningServer): { expired: number; clients: number }[] {
  return [...server.output().matchAll(/gatehouse: swept (\d+) expired record\(s\), (\d+) unused client\(s\)/g)].map((match) => ({
    expired: Number(match[1]),
    clients: Number(match[2]),
  }));
}

async function until(condition: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(200);
  }
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL && REDIS))('two instances sharing PostgreSQL and Redis', () => {
  let database: PostgresDatabase;
  let first: RunningServer;
  let second: RunningServer;
  /** Redis as both instances reach it: a proxy the test can cut. */
  let redis: TcpProxy;
  /** A connection of the test's own to the shared database; it holds the sweeper lock until the sweeper test. */
  let sql: pg.Client;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    await sql.query('SELECT pg_advisory_lock($1)', [SWEEPER_LOCK_KEY]);
    const direct = new URL(REDIS!);
    redis = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 6379) });
    const proxied = new URL(REDIS!);
    proxied.port = String(redis.port);
    // One installation: the same PUBLIC_URL, secret, database and Redis behind two processes (as behind
    // a load balancer). People's browsers use the first; clients call both. Both would sweep every second.
    const [firstPort, secondPort] = [await freePort(), await freePort()];
    const env = {
      PUBLIC_URL: `http://localhost:${firstPort}`,
      AUTH_SECRET: randomBytes(32).toString('base64url'),
      REDIS_URL: proxied.toString(),
      SWEEP_INTERVAL_SECONDS: '1',
    };
    // Both start at once on an empty database: migrations are applied once, under the advisory lock.
    [first, second] = await Promise.all([
      startServer({ database: 'postgres', postgres: database, env, port: firstPort }),
      startServer({ database: 'postgres', postgres: database, env, port: secondPort }),
    ]);
    const seeded = await runCli('prisma/seed.ts', [], first.env);
    expect(seeded.stdout).toMatch(/Demo data created/);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await sql?.end().catch(() => {});
    await redis?.close();
    await database?.drop();
  });

  it('applied the migrations exactly once', () => {
    const applied = [first.output(), second.output()].map((output) => /(\d+) migration\(s\) applied/.exec(output)?.[1]);
    expect(applied.sort()).toEqual(['0', String(readMigrations().length)]);
  });

  it('publishes the same keys from both', async () => {
    const [a, b] = await Promise.all([first, second].map(async (server) => (await fetch(`${server.url}/oauth/jwks`)).json()));
    expect(a).toEqual(b);
  });

  it('shares one rate-limit budget per grant', async () => {
    const client = await register(first.url, { client_name: 'Shared budget', redirect_uris: ['https://budget.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    const replies = await Promise.all(Array.from({ length: 120 }, (_, index) => postMcp(index % 2 ? second.url : first.url, tokens.access_token, rpc('ping'))));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(120);
    expect((await postMcp(first.url, tokens.access_token, rpc('ping'))).status).toBe(429);
    expect((await postMcp(second.url, tokens.access_token, rpc('ping'))).status).toBe(429);
  });

  it('honours on each instance the access and refresh tokens the other issued', async () => {
    const client = await register(first.url, { client_name: 'Across', redirect_uris: ['https://tokens-across.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    expect((await postMcp(second.url, tokens.access_token, rpc('ping'))).status).toBe(200);
    const refreshed = await tokenRequest(second.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refreshed.response.status).toBe(200);
    expect((await postMcp(first.url, refreshed.body.access_token!, rpc('ping'))).status).toBe(200);
    const again = await tokenRequest(first.url, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token!, client_id: client.client_id });
    expect(again.response.status).toBe(200);
    expect((await postMcp(second.url, again.body.access_token!, rpc('ping'))).status).toBe(200);
  });

  it('gives parallel refreshes of one token through both instances the same new pair', async () => {
    const client = await register(second.url, { client_name: 'Replay', redirect_uris: ['https://replay.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => tokenRequest(index % 2 ? first.url : second.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })),
    );
    expect(results.map((result) => result.response.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((result) => result.body.refresh_token)).size).toBe(1);
  });

  it('fails the next call on one instance after a revocation on the other', async () => {
    const client = await register(first.url, { client_name: 'Revoke across', redirect_uris: ['https://across.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    expect((await postMcp(second.url, tokens.access_token, rpc('ping'))).status).toBe(200);
    const revoke = await fetch(`${first.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: client.client_id }).toString(),
    });
    expect(revoke.status).toBe(200);
    expect((await postMcp(second.url, tokens.access_token, rpc('ping'))).status).toBe(401);
  });

  it('sweeps on one instance only, once per period, and on none while another holds the sweeper lock', async () => {
    // The test has held the sweeper lock since before the instances started, and they sweep every second.
    expect([sweeps(first), sweeps(second)]).toEqual([[], []]);
    const unused = await register(second.url, { client_name: 'Unused', redirect_uris: ['https://unused.example/cb'] });
    // A connection leaves a provider session, an interaction and a code behind: rows to expire.
    const used = await register(first.url, { client_name: 'Used', redirect_uris: ['https://used.example/cb'] });
    await connect(first.url, used, owner);
    await sql.query(`UPDATE clients SET first_seen_at = now() - interval '25 hours' WHERE client_id = $1`, [unused.client_id]);
    await sql.query(`UPDATE oidc_models SET expires_at = now() - interval '1 minute' WHERE model IN ('Interaction', 'Session', 'AuthorizationCode')`);
    await sql.query(`INSERT INTO sign_in_sessions (id, person_id, expires_at) SELECT 'expired-session', id, now() - interval '1 minute' FROM people WHERE email = $1`, [owner.email]);
    const rows = async () =>
      Number((await sql.query<{ n: string }>(`SELECT ((SELECT count(*) FROM oidc_models) + (SELECT count(*) FROM sign_in_sessions) + (SELECT count(*) FROM password_links))::text AS n`)).rows[0]!.n);
    const expired = async () =>
      Number(
        (await sql.query<{ n: string }>(`SELECT ((SELECT count(*) FROM oidc_models WHERE expires_at < now()) + (SELECT count(*) FROM sign_in_sessions WHERE expires_at < now()))::text AS n`)).rows[0]!
          .n,
      );
    await sleep(2_500);
    expect([sweeps(first), sweeps(second)]).toEqual([[], []]);
    expect(await expired()).toBeGreaterThanOrEqual(3);

    const before = await rows();
    // The unused client's own provider records go with it, not as expired rows.
    const clientRows = await sql.query(
      `SELECT 1 FROM oidc_models WHERE (model = 'Client' AND id = $1 OR model = 'RegistrationAccessToken' AND payload->>'clientId' = $1)
         AND (expires_at IS NULL OR expires_at >= now())`,
      [unused.client_id],
    );
    expect(clientRows.rowCount).toBeGreaterThan(0);
    await sql.query('SELECT pg_advisory_unlock($1)', [SWEEPER_LOCK_KEY]);
    const released = Date.now();
    await until(async () => (await expired()) === 0, 10_000);
    await sleep(3_500); // several more periods
    const periods = (Date.now() - released) / 1_000;

    const [sweeper, other] = sweeps(first).length ? [first, second] : [second, first];
    expect(sweeps(other)).toEqual([]);
    expect(other.output()).not.toMatch(/now runs the housekeeping sweeps/);
    expect(sweeper.output().match(/now runs the housekeeping sweeps/g)).toHaveLength(1);
    expect(sweeps(sweeper).length).toBeGreaterThanOrEqual(3);
    expect(sweeps(sweeper).length).toBeLessThanOrEqual(Math.ceil(periods) + 1);
    // Each row was deleted once, by the one sweeper, and counted once.
    const counted = sweeps(sweeper).reduce((sum, sweep) => ({ expired: sum.expired + sweep.expired, clients: sum.clients + sweep.clients }), { expired: 0, clients: 0 });
    expect(counted.clients).toBe(1);
    const deletions = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM audit_events WHERE type = 'client.deleted' AND client_id = $1`, [unused.client_id]);
    expect(deletions.rows[0]!.n).toBe('1');
    // Nothing else was created meanwhile: every row that went is in one sweep's count.
    expect(counted.expired + clientRows.rowCount!).toBe(before - (await rows()));
  }, 30_000);

  it('counts budgets per instance while Redis is unreachable, and keeps answering', async () => {
    const client = await register(first.url, { client_name: 'Redis outage', redirect_uris: ['https://redis-outage.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    redis.cut();
    try {
      const started = Date.now();
      const replies = await Promise.all(Array.from({ length: 260 }, (_, index) => postMcp(index % 2 ? second.url : first.url, tokens.access_token, rpc('ping'))));
      expect(Date.now() - started).toBeLessThan(20_000);
      // One budget of 120 on each instance: the degradation docs/operations.md documents, never an error.
      const byInstance = [0, 1].map((parity) => replies.filter((_, index) => index % 2 === parity).map((reply) => reply.status));
      for (const statuses of byInstance) {
        expect(statuses.filter((status) => status === 200)).toHaveLength(120);
        expect(statuses.filter((status) => status === 429)).toHaveLength(10);
      }
    } finally {
      redis.restore();
    }
  }, 60_000);

  it('hands the sweeps to another instance when the sweeper stops', async () => {
    const [sweeper, other] = sweeps(first).length ? [first, second] : [second, first];
    await sweeper.halt();
    await sql.query(`INSERT INTO sign_in_sessions (id, person_id, expires_at) SELECT 'expired-after-handover', id, now() - interval '1 minute' FROM people WHERE email = $1`, [owner.email]);
    await until(async () => (await sql.query(`SELECT 1 FROM sign_in_sessions WHERE id = 'expired-after-handover'`)).rowCount === 0, 10_000);
    expect(other.output()).toMatch(/now runs the housekeeping sweeps/);
    // A sweep logs its counts when it ends, after its first deletions: wait for the line, not just the row.
    await until(() => sweeps(other).length >= 1, 10_000);
  }, 30_000);
});

describe('when Redis is unreachable', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ database: 'embedded', env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  });
  afterAll(async () => server?.stop());

  it('keeps serving /mcp, counting the budget in memory', async () => {
    const client = await register(server.url, { client_name: 'No Redis', redirect_uris: ['https://noredis.example/cb'] });
    const { tokens } = await connect(server.url, client, owner);
    const reply = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
    expect(reply.status).toBe(200);
    expect(reply.body?.result.isError).toBe(false);
    // Under load too: every call answered at once, the budget of 120 still enforced, in memory.
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 130 }, () => postMcp(server.url, tokens.access_token, rpc('ping'))));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(replies.filter((each) => each.status === 200)).toHaveLength(119);
    expect(replies.filter((each) => each.status === 429)).toHaveLength(11);
  });
});
