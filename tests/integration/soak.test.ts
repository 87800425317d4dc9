// The soak run in CI (issue: reliability): the same traffic and consistency check as `npm run soak`,
// for 60 s (SOAK_SECONDS to change it) against the production build on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { residentMb } from '../../bench/server';
import { soak, soakReport, SOAK_SERVER_ENV } from '../../soak/soak';
import { DATABASES } from '../helpers/databases';
import { TEST_DIST_DIR } from '../helpers/paths';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);

describe.runIf(DATABASES.includes('postgres'))('soak (PostgreSQL)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ database: 'postgres', env: SOAK_SERVER_ENV });
  });
  afterAll(async () => server?.stop());

  it(`stays consistent through ${SECONDS} s of OAuth flows, refreshes, /mcp calls, revocations and admin changes`, { timeout: (SECONDS + 120) * 1000 }, async () => {
    const result = await soak({
      baseUrl: server.url,
      seconds: SECONDS,
      distDir: TEST_DIST_DIR,
      password: TEST_DEMO_PASSWORD,
      databaseUrl: server.postgres!.url,
      rssMb: () => residentMb(server.pid),
    });
    console.log(soakReport(result));
    // Enough of each kind of traffic happened for the checks to mean something.
    expect(result.tally.connected).toBeGreaterThan(5);
    expect(result.tally.mcpAnswered).toBeGreaterThan(500);
    expect(result.tally.refreshed).toBeGreaterThan(20);
    expect(result.tally.revokedByClient).toBeGreaterThan(3);
    expect(result.tally.revokedByPerson).toBeGreaterThan(3);
    expect(result.tally.toolChanges).toBeGreaterThan(5);
    expect(result.checks.filter((check) => !check.ok)).toEqual([]);
  });
});
