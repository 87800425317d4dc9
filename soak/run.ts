// `npm run soak`: mixed traffic against the production build on PostgreSQL for SOAK_SECONDS (600),
// then the consistency check (soak/checks.ts). Exits 1 when any check fails.
//
// Options (environment): SOAK_SECONDS (600); SOAK_DATABASE_URL (a PostgreSQL database; the run creates
// its own database beside it, seeded with the demo data, and drops it after).
import { residentMb, ensureBuild, startBenchServer } from '../bench/server';
import { createSeededDatabase } from '../bench/database';
import { soak, soakReport, SOAK_SERVER_ENV } from './soak';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const ADMIN_URL = process.env.SOAK_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const PASSWORD = 'soak-demo-password';

ensureBuild();
const database = await createSeededDatabase(ADMIN_URL, PASSWORD);
const server = await startBenchServer(database.url, { ...SOAK_SERVER_ENV, DEMO_PASSWORD: PASSWORD });
let ok = false;
try {
  console.log(`soak: ${SECONDS} s of mixed traffic against ${server.url} (PostgreSQL)…`);
  const result = await soak({ baseUrl: server.url, seconds: SECONDS, distDir: '.next', password: PASSWORD, databaseUrl: database.url, rssMb: () => residentMb(server.pid) });
  console.log(soakReport(result));
  ok = result.ok;
} finally {
  await server.stop();
  await database.drop();
}
process.exit(ok ? 0 : 1);
