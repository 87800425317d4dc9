// `npm run bench`: the authorization hot path against a baseline, on PostgreSQL and on the embedded
// database, in one run. Starts the production build, gets real tokens through the real OAuth flow (one
// grant per client), measures scenarios A–F (bench/scenarios.ts), and writes bench/results/latest.md
// and latest.json. Options (environment): BENCH_DATABASES=postgres,embedded; BENCH_SECONDS (10);
// BENCH_GRANTS (100); BENCH_DATABASE_URL (postgresql://postgres@127.0.0.1:5432/test: the benchmark
// creates its own database beside it and drops it after).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '@/lib/cli/standalone';
import { withAdmin } from '../tests/helpers/databases';
import { CONNECTIONS, latencyAt, maxThroughput, type Measurement } from './measure';
import { machine, markdown, type DatabaseRun, type Report } from './report';
import { scenarios } from './scenarios';
import { ensureBuild, startBenchServer } from './server';
import { connectClients } from './tokens';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const GRANTS = Number(process.env.BENCH_GRANTS ?? 100);
const WARMUP_SECONDS = 2;
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,embedded').split(',').map((name) => name.trim());
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const PASSWORD = 'bench-demo-password';
const SERVER_ENV = {
  // The limiter still runs on every request; the budget is raised so that throughput, not refusals, is measured.
  MCP_RATE_LIMIT_PER_MINUTE: '10000000',
  REGISTRATION_RATE_LIMIT: '100000',
  DEMO_PASSWORD: PASSWORD,
};

async function benchDatabase(kind: string): Promise<DatabaseRun> {
  let databaseUrl: string | null = null;
  let drop = async () => {};
  if (kind === 'postgres') {
    const name = `gatehouse_bench_${randomBytes(4).toString('hex')}`;
    await withAdmin(ADMIN_URL, (client) => client.query(`CREATE DATABASE "${name}"`));
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    drop = async () => void (await withAdmin(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));
    const seeded = spawnSync(process.execPath, ['--import', 'tsx', 'prisma/seed.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, DEMO_PASSWORD: PASSWORD, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-bench' },
      encoding: 'utf8',
    });
    if (seeded.status !== 0) throw new Error(`bench: seeding PostgreSQL failed:\n${seeded.stderr}`);
  }
  const server = await startBenchServer(databaseUrl, SERVER_ENV);
  try {
    const started = Date.now();
    const connections = await connectClients(server.url, { email: 'member@acme.test', password: PASSWORD }, GRANTS);
    const seedSeconds = (Date.now() - started) / 1000;
    console.log(`bench [${kind}]: ${connections.length} grants through the OAuth flow in ${seedSeconds.toFixed(1)} s`);
    const all = scenarios(connections);
    // Unrecorded warm-up: Next.js loads route modules and the database pool fills on first use.
    for (const scenario of all) await maxThroughput(server.url, scenario, WARMUP_SECONDS);
    server.resetPeak();
    const maxima = new Map<string, Awaited<ReturnType<typeof maxThroughput>>>();
    for (const scenario of all) {
      maxima.set(scenario.key, await maxThroughput(server.url, scenario, SECONDS));
      console.log(`bench [${kind}] ${scenario.key} max: ${maxima.get(scenario.key)!.rps.toFixed(0)} req/s`);
    }
    const rate = Math.max(1, Math.floor(maxima.get('B')!.rps / 2));
    const measurements: Measurement[] = [];
    for (const scenario of all) {
      const fixed = await latencyAt(server.url, scenario, SECONDS, rate);
      const max = maxima.get(scenario.key)!;
      measurements.push({
        key: scenario.key,
        label: scenario.label,
        maxRps: max.rps,
        fixedRate: rate,
        achievedRps: fixed.achievedRps,
        latencyMs: fixed.latencyMs,
        errors: max.errors + fixed.errors,
        requests: max.requests + fixed.requests,
        statuses: sumCounts(max.statuses, fixed.statuses),
      });
      console.log(`bench [${kind}] ${scenario.key} at ${rate} req/s: p50 ${fixed.latencyMs.p50} ms, p99 ${fixed.latencyMs.p99} ms`);
    }
    return { database: kind === 'postgres' ? 'PostgreSQL' : 'Embedded (PGlite)', measurements, peakRssMb: server.peakRssMb(), connections: connections.length, seedSeconds };
  } finally {
    await server.stop();
    await drop();
  }
}

function sumCounts(...counts: Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const count of counts) for (const [key, value] of Object.entries(count)) total[key] = (total[key] ?? 0) + value;
  return total;
}

async function main(): Promise<void> {
  // Each connection of the refresh scenario follows its own client's token chain.
  if (GRANTS < CONNECTIONS) throw new Error(`bench: BENCH_GRANTS must be at least ${CONNECTIONS}`);
  ensureBuild();
  const runs: DatabaseRun[] = [];
  for (const kind of DATABASES) runs.push(await benchDatabase(kind));
  const report: Report = { at: new Date().toISOString(), machine: machine(), node: process.versions.node, secondsPerRun: SECONDS, runs };
  const directory = join(PROJECT_ROOT, 'bench', 'results');
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  const table = markdown(report);
  writeFileSync(join(directory, 'latest.md'), `${table}\n`);
  console.log(`\n${table}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
