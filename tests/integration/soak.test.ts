// The soak run in CI (issue: reliability): the same traffic and consistency check as `npm run soak`,
// for 60 s (SOAK_SECONDS to change it) against the production build on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { residentMb } from '../../bench/server';
import { checkConsistency } from '../../soak/checks';
import { soak, soakReport, SOAK_SERVER_ENV, type SoakResult } from '../../soak/soak';
import { DATABASES } from '../helpers/databases';
import { TEST_DIST_DIR } from '../helpers/paths';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);

describe.runIf(DATABASES.includes('postgres'))('soak (PostgreSQL)', () => {
  let server: RunningServer;
  let result: SoakResult | undefined;

  beforeAll(async () => {
    server = await startServer({ database: 'postgres', env: SOAK_SERVER_ENV });
  });
  afterAll(async () => server?.stop());

  it(`stays consistent through ${SECONDS} s of OAuth flows, refreshes, /mcp calls, revocations and admin changes`, { timeout: (SECONDS + 120) * 1000 }, async () => {
    result = await soak({
      baseUrl: server.url,
      seconds: SECONDS,
      distDir: TEST_DIST_DIR,
      password: TEST_DEMO_PASSWORD,
      databaseUrl: server.postgres!.url,
      rssMb: () => residentMb(server.pid),
    });
    console.log(soakReport(result));
    // Every kind of traffic happened (how much depends on what else the CI machine is running).
    expect(result.tally.connected).toBeGreaterThanOrEqual(3);
    expect(result.tally.mcpAnswered).toBeGreaterThanOrEqual(100);
    expect(result.tally.refreshed).toBeGreaterThanOrEqual(5);
    expect(result.tally.revokedByClient).toBeGreaterThanOrEqual(1);
    expect(result.tally.revokedByPerson).toBeGreaterThanOrEqual(1);
    expect(result.tally.toolChanges).toBeGreaterThanOrEqual(3);
    expect(result.checks.filter((check) => !check.ok)).toEqual([]);
  });

  it('would notice a live token left for a revoked grant and a lost call-log row', async () => {
    expect(result, 'the soak ran').toBeDefined();
    const client = new pg.Client({ connectionString: server.postgres!.url });
    await client.connect();
    try {
      // A token row as the provider writes it, for a grant the traffic revoked, expiring in an hour.
      await client.query(
        `INSERT INTO oidc_models (model, id, payload, grant_id, expires_at)
         SELECT 'AccessToken', 'planted', '{}'::jsonb, id, now() + interval '1 hour' FROM grants WHERE client_id = $1`,
        [result!.tally.revokedClientIds[0]],
      );
      await client.query('DELETE FROM mcp_calls WHERE id = (SELECT max(id) FROM mcp_calls)');
    } finally {
      await client.end();
    }
    const failed = (await checkConsistency(server.postgres!.url, result!.tally, result!.startedAt)).filter((check) => !check.ok).map((check) => check.name);
    expect(failed).toEqual(['call-log rows = /mcp requests answered', 'live tokens of revoked grants']);
  });
});
