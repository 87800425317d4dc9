// Several instances sharing PostgreSQL and Redis behave as one (SPEC §6, issue "Done when"): they start
// together, share the rate-limit budget and the refresh replay window, and see each other's revocations
// at once. And when Redis is unreachable, /mcp keeps answering.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '@/lib/db/migrate';
import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type PostgresDatabase } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, tokenRequest } from '../helpers/oauth';
import { freePort, startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const REDIS = process.env.TEST_REDIS_URL;
const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(Boolean(process.env.TEST_DATABASE_URL && REDIS))('two instances sharing PostgreSQL and Redis', () => {
  let database: PostgresDatabase;
  let first: RunningServer;
  let second: RunningServer;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    // One installation: the same PUBLIC_URL, secret, database and Redis behind two processes (as behind
    // a load balancer). People's browsers use the first; clients call both.
    const [firstPort, secondPort] = [await freePort(), await freePort()];
    const env = {
      PUBLIC_URL: `http://localhost:${firstPort}`,
      AUTH_SECRET: randomBytes(32).toString('base64url'),
      REDIS_URL: REDIS!,
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
    const replies = await Promise.all(
      Array.from({ length: 120 }, (_, index) => postMcp(index % 2 ? second.url : first.url, tokens.access_token, rpc('ping'))),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(120);
    expect((await postMcp(first.url, tokens.access_token, rpc('ping'))).status).toBe(429);
    expect((await postMcp(second.url, tokens.access_token, rpc('ping'))).status).toBe(429);
  });

  it('gives parallel refreshes of one token through both instances the same new pair', async () => {
    const client = await register(second.url, { client_name: 'Replay', redirect_uris: ['https://replay.example/cb'] });
    const { tokens } = await connect(first.url, client, owner);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        tokenRequest(index % 2 ? first.url : second.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }),
      ),
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
  });
});
