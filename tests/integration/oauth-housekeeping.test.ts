// Housekeeping and keys: unused clients and expired rows are swept; keys rotate without breaking
// verification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../helpers/cli';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase } from '../helpers/inspect';
import { connect, register, tokenRequest, type RegisteredClient } from '../helpers/oauth';
import { TEST_DIST_DIR } from '../helpers/paths';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { buildLayout } from '../../lib/cli/standalone';
import { join } from 'node:path';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DATABASES)('housekeeping on the %s database', (kind) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ database: kind, env: { SWEEP_INTERVAL_SECONDS: '1' } });
  });
  afterAll(async () => server?.stop());

  it('deletes a client that got no grant within 24 h, keeps one that did, moves a decision made on a registration onto its app and keeps that app, removes the apps left empty, and removes expired rows', async () => {
    const unused = await register(server.url, { client_name: 'Abandoned', redirect_uris: ['https://abandoned.example/cb'] });
    const decided = await register(server.url, { client_name: 'Blocked early', redirect_uris: ['https://blocked-early.example/cb'] });
    const used: RegisteredClient = await register(server.url, { client_name: 'Used', redirect_uris: ['https://used.example/cb'] });
    const { tokens } = await connect(server.url, used, member);

    // A day passes (for these two clients), and some provider rows expire.
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`UPDATE clients SET first_seen_at = now() - interval '25 hours' WHERE client_id IN ($1, $2, $3)`, [unused.client_id, used.client_id, decided.client_id]);
      await query(`UPDATE oidc_models SET expires_at = now() - interval '1 minute' WHERE model IN ('Interaction', 'Session')`);
      // Their apps were last seen long enough ago for an empty one to go.
      await query(`UPDATE apps SET last_seen_at = now() - interval '2 hours' WHERE id IN (SELECT app_id FROM clients WHERE client_id IN ($1, $2, $3))`, [
        unused.client_id,
        used.client_id,
        decided.client_id,
      ]);
      // A decision made on a registration before apps existed: start-up moves it onto the app.
      await query(`INSERT INTO org_client_decisions (org_id, client_id, decision) SELECT id, $1, 'blocked' FROM organizations WHERE slug = 'acme'`, [decided.client_id]);
      await query(`INSERT INTO sign_in_sessions (id, person_id, expires_at) SELECT 'expired-session', id, now() - interval '1 minute' FROM people WHERE email = 'member@acme.test'`);
      await query(
        `INSERT INTO password_links (token_hash, person_id, purpose, expires_at) SELECT 'expired-link', id, 'reset', now() - interval '1 minute' FROM people WHERE email = 'member@acme.test'`,
      );
    }));
    // Start-up moves decisions made on registrations onto apps: the embedded database's inspection restarted the server, PostgreSQL's did not.
    if (kind !== 'embedded') {
      await server.halt();
      server = await startServer(server.restartOptions);
    }
    await sleep(3_000); // the sweeper runs every second in this server

    const gone = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: 'x', client_id: unused.client_id });
    expect(gone.response.status).toBe(401);
    expect(gone.body.error).toBe('invalid_client');
    const read = await fetch(unused.registration_client_uri, { headers: { authorization: `Bearer ${unused.registration_access_token}` } });
    expect(read.status).toBe(401);
    const kept = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: used.client_id });
    expect(kept.response.status).toBe(200);

    type Counts = {
      expired: string;
      deletions: string;
      registrationTokens: string;
      decidedRegistration: string;
      legacyDecisions: string;
      movedBlock: string;
      expiredSessions: string;
      expiredLinks: string;
      abandonedApps: string;
      keptApps: string;
    };
    let counts: Counts | undefined;
    ({ server, result: counts } = await inspectDatabase(server, async (query) => {
      const [row] = await query<Counts>(
        `SELECT
           (SELECT count(*) FROM oidc_models WHERE expires_at < now())::text AS expired,
           (SELECT count(*) FROM clients WHERE client_id = $2)::text AS "decidedRegistration",
           (SELECT count(*) FROM org_client_decisions)::text AS "legacyDecisions",
           (SELECT count(*) FROM org_app_decisions d JOIN apps a ON a.id = d.app_id
             WHERE a.marks @> ARRAY['host:blocked-early.example'] AND d.decision = 'blocked')::text AS "movedBlock",
           (SELECT count(*) FROM sign_in_sessions WHERE expires_at < now())::text AS "expiredSessions",
           (SELECT count(*) FROM password_links WHERE expires_at < now())::text AS "expiredLinks",
           (SELECT count(*) FROM audit_events WHERE type = 'client.deleted' AND client_id = $1)::text AS deletions,
           (SELECT count(*) FROM oidc_models WHERE model = 'RegistrationAccessToken' AND payload->>'clientId' = $1)::text AS "registrationTokens",
           (SELECT count(*) FROM apps WHERE marks @> ARRAY['host:abandoned.example'])::text AS "abandonedApps",
           (SELECT count(*) FROM apps WHERE (marks @> ARRAY['host:used.example'] AND registration_count = 1)
                                          OR (marks @> ARRAY['host:blocked-early.example'] AND registration_count = 0))::text AS "keptApps"`,
        [unused.client_id, decided.client_id],
      );
      return row!;
    }));
    // The unused registration of the blocked app goes like any other; its app stays, carrying the block.
    expect(counts).toEqual({
      expired: '0',
      deletions: '1',
      registrationTokens: '0',
      decidedRegistration: '0',
      legacyDecisions: '0',
      movedBlock: '1',
      expiredSessions: '0',
      expiredLinks: '0',
      abandonedApps: '0',
      keptApps: '2',
    });
  }, 180_000); // two restarts of the server (inspectDatabase), each a full start on a loaded machine
});

describe('key rotation', () => {
  it('publishes the new keys first and keeps the retired ones published', async () => {
    let server = await startServer({ database: 'embedded' });
    try {
      const before = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: { kid: string; kty: string }[] };
      await server.halt();
      const standalone = join(buildLayout(TEST_DIST_DIR).distDir, 'standalone');
      const rotated = await runNode(join(standalone, 'cli', 'rotate-keys.mjs'), [], server.env, standalone);
      expect(rotated.stderr).toBe('');
      expect(rotated.stdout).toMatch(/New keys: rs256-.*, es256-.*, hs256-/);
      server = await startServer(server.restartOptions);
      const after = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: { kid: string; kty: string }[] };
      expect(after.keys).toHaveLength(4);
      expect(after.keys.slice(0, 2).map((key) => key.kid)).toEqual([expect.stringMatching(/^(rs|es)256-/), expect.stringMatching(/^(rs|es)256-/)]);
      expect(after.keys.map((key) => key.kid)).toEqual(expect.arrayContaining(before.keys.map((key) => key.kid)));
      // Sessions signed with the old cookie key keep working: people stay signed in through the provider.
      const client = await register(server.url, { client_name: 'After rotation', redirect_uris: ['https://rot.example/cb'] });
      const { tokens } = await connect(server.url, client, member);
      expect(tokens.access_token).toMatch(/^mcp_at_/);
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('uses keys given in the environment instead of generating them', async () => {
    const { generateKeyPairSync, randomBytes } = await import('node:crypto');
    const rsa = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'env-rsa', alg: 'RS256', use: 'sig' };
    const server = await startServer({
      database: 'embedded',
      env: { OAUTH_SIGNING_KEYS: JSON.stringify([rsa]), OAUTH_COOKIE_KEYS: randomBytes(32).toString('hex') },
    });
    try {
      const { keys } = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: { kid: string; d?: string }[] };
      expect(keys.map((key) => key.kid)).toEqual(['env-rsa']);
      expect(keys[0]).not.toHaveProperty('d');
      const client = await register(server.url, { client_name: 'Env keys', redirect_uris: ['https://env.example/cb'] });
      expect((await connect(server.url, client, member)).tokens.access_token).toMatch(/^mcp_at_/);
    } finally {
      await server.stop();
    }
  });
});
