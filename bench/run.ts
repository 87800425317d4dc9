// `npm run bench`: the authorization hot path against a baseline, on PostgreSQL and on the embedded
// database, in one run. Starts the production build, gets real tokens through the real OAuth flow (one
// grant per client), measures scenarios A–F (bench/scenarios.ts), then — PostgreSQL only — B with a
// thousand stored tokens against B with a million (bench/bulk-seed.ts), and — PostgreSQL only, where the
// connector can be added while the server runs — G, a connector tool through Gatehouse, H, the same call
// straight to its upstream (bench/upstream.ts), I and J, B and G under 2026-07-28, and K, G to a stateless
// upstream. It writes bench/results/latest.md and latest.json. Options (environment):
// BENCH_DATABASES=postgres,embedded; BENCH_SECONDS (10); BENCH_WARMUP_SECONDS (5); BENCH_GRANTS (100);
// BENCH_SCALE_TOKENS (1000000; 0 skips the scale run); BENCH_SCENARIOS (A,B,C,D,E,F,G,H,I,J,K);
// BENCH_CPU_PROFILE (a folder: the server writes a V8 CPU profile there when it stops); BENCH_NODE_FLAGS
// (extra Node flags for the server, e.g. heap settings to compare); BENCH_PAIRED_ROUNDS (6) and
// BENCH_PAIRED_SECONDS (3): the connector ratios in alternating rounds (paired.ts), then again with the
// upstreams on a CPU of their own (placement.ts; BENCH_APART=0 skips that); BENCH_DATABASE_URL
// (postgresql://postgres@127.0.0.1:5432/test: the benchmark creates its own database beside it and drops
// it after).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '@/lib/cli/standalone';
import { seedFiller } from './bulk-seed';
import { createSeededDatabase, RUN_AUTH_SECRET, type PreparedDatabase } from './database';
import { handlerLatency, harnessFloor } from './floor';
import { CONNECTIONS, latencyAt, maxThroughput, type Measurement } from './measure';
import { machine, markdown, type DatabaseRun, type Report, type ScaleRun, type ScalePoint, type TailReading } from './report';
import { BASELINE, BENCH_CONNECTOR, type BenchUpstreams, connectorScenarios, STATELESS_CONNECTOR, scenarios, whoamiScenario, type Scenario } from './scenarios';
import { type PairedRatios, pairedRatios } from './paired';
import { apartPlacement, databaseBackends, pin } from './placement';
import { ensureBuild, mainThreadMs, processCpuMs, startBenchServer, type BenchServer } from './server';
import { type BenchUpstream, openBenchSession, startBenchUpstream } from './upstream';
import { connectClients, type Connection } from './tokens';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const GRANTS = Number(process.env.BENCH_GRANTS ?? 100);
const SCALE_TOKENS = Number(process.env.BENCH_SCALE_TOKENS ?? 1_000_000);
const SMALL_TOKENS = 1_000;
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((key) => key.trim().toUpperCase());
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
const PAIRED_ROUNDS = Number(process.env.BENCH_PAIRED_ROUNDS ?? 6);
const PAIRED_SECONDS = Number(process.env.BENCH_PAIRED_SECONDS ?? 3);
const APART = process.env.BENCH_APART !== '0';
/** The connector targets' pairs, base then call: G against B, J against I. */
const CONNECTOR_PAIRS = [
  ['B', 'G'],
  ['I', 'J'],
] as const;
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,embedded').split(',').map((name) => name.trim());
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const PASSWORD = 'bench-demo-password';
const SERVER_ENV = {
  // The limiters still run on every request; the budgets are raised so that throughput, not refusals, is
  // measured (D sends every request without a token, from one address).
  MCP_RATE_LIMIT_PER_MINUTE: '10000000',
  MCP_UNAUTHENTICATED_RATE_LIMIT: '10000000',
  REGISTRATION_RATE_LIMIT: '100000',
  DEMO_PASSWORD: PASSWORD,
};

async function prepareDatabase(kind: string): Promise<PreparedDatabase> {
  if (kind !== 'postgres') return { url: null, drop: async () => {} };
  return createSeededDatabase(ADMIN_URL, PASSWORD);
}

async function benchDatabase(kind: string): Promise<DatabaseRun> {
  const database = await prepareDatabase(kind);
  const server = await startBenchServer(database.url, SERVER_ENV, CPU_PROFILE);
  const upstreams = database.url ? { sessions: await startBenchUpstream('sessions'), direct: await startBenchUpstream('sessions'), stateless: await startBenchUpstream('stateless') } : null;
  try {
    const started = Date.now();
    const connections = await connectClients(server.url, { email: 'member@acme.test', password: PASSWORD }, GRANTS);
    const seedSeconds = (Date.now() - started) / 1000;
    console.log(`bench [${kind}]: ${connections.length} grants through the OAuth flow in ${seedSeconds.toFixed(1)} s`);
    const scaling = database.url && SCALE_TOKENS > 0 ? await startScaleRun(kind, server, database.url, connections) : null;
    const extra = upstreams ? await connectorBench(database.url!, upstreams, connections) : [];
    const all = [...scenarios(connections), ...extra].filter((scenario) => !ONLY || ONLY.includes(scenario.key) || scenario.key === 'B');
    const { measurements, tail } = await measureAll(kind, server, all, database.url);
    const peakRssMb = server.peakRssMb();
    const scale = scaling ? await scaling.finish() : null;
    return { database: kind === 'postgres' ? 'PostgreSQL' : 'Embedded (PGlite)', measurements, peakRssMb, connections: connections.length, seedSeconds, scale, tail };
  } finally {
    await server.stop();
    for (const upstream of Object.values(upstreams ?? {})) await upstream.stop();
    await database.drop();
  }
}

/**
 * Adds the bench upstreams of G and K as connectors of Acme (where the connections are), by the command
 * line, and opens the session H's requests carry with its own upstream.
 */
async function connectorBench(databaseUrl: string, { sessions, direct, stateless }: Record<keyof BenchUpstreams, BenchUpstream>, connections: Connection[]): Promise<Scenario[]> {
  const add = (slug: string, url: string, name: string) => {
    const added = spawnSync(process.execPath, ['--import', 'tsx', 'lib/cli/connectors.ts', 'add', slug, url, '--name', name, '--orgs', 'acme'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: RUN_AUTH_SECRET },
      encoding: 'utf8',
    });
    if (added.status !== 0) throw new Error(`bench: adding the connector ${slug} failed: ${added.stderr || added.stdout}`);
  };
  add(BENCH_CONNECTOR, sessions.url, 'Bench echo');
  add(STATELESS_CONNECTOR, stateless.url, 'Bench echo (stateless)');
  return connectorScenarios(connections, { sessions, direct: { ...direct, session: await openBenchSession(direct.url, '2025-11-25') }, stateless });
}

/** Every scenario: an unrecorded warm-up, the maxima, then latency at half of B's maximum. */
async function measureAll(kind: string, server: BenchServer, all: Scenario[], databaseUrl: string | null): Promise<{ measurements: Measurement[]; tail: TailReading }> {
  // Unrecorded warm-up: Next.js loads route modules, V8 optimizes the hot code, the pool fills.
  const target = (scenario: Scenario) => scenario.baseUrl ?? server.url;
  for (const scenario of all) await maxThroughput(target(scenario), scenario, WARMUP_SECONDS);
  server.resetPeak();
  const maxima = new Map<string, Awaited<ReturnType<typeof maxThroughput>>>();
  const cpu = new Map<string, NonNullable<Measurement['cpuMsPerRequest']>>();
  // What each process spent per request at the maximum: on a machine shared with the database, the
  // upstream and the load generator, a throughput ratio also reflects who got the cores.
  const cpuNow = (upstreamPid: number | undefined) => ({
    server: processCpuMs(server.pid),
    upstream: upstreamPid === undefined ? Number.NaN : processCpuMs(upstreamPid),
    loop: mainThreadMs(server.pid),
  });
  for (const scenario of all) {
    const before = cpuNow(scenario.upstreamPid);
    const max = await maxThroughput(target(scenario), scenario, SECONDS);
    const after = cpuNow(scenario.upstreamPid);
    maxima.set(scenario.key, max);
    const perRequest = (spent: number) => (Number.isFinite(spent) && max.requests > 0 ? Math.round((spent / max.requests) * 100) / 100 : null);
    const serverMs = perRequest(after.server - before.server);
    const running = perRequest(after.loop.running - before.loop.running);
    const waiting = perRequest(after.loop.waiting - before.loop.waiting);
    const eventLoop = running !== null && waiting !== null ? { running, waiting } : undefined;
    if (serverMs !== null) cpu.set(scenario.key, { server: serverMs, upstream: perRequest(after.upstream - before.upstream), ...(eventLoop ? { eventLoop } : {}) });
    const loopText = eventLoop ? ` (event loop on a CPU ${running} ms, waiting for one ${waiting} ms)` : '';
    console.log(`bench [${kind}] ${scenario.key} max: ${max.rps.toFixed(0)} req/s${serverMs !== null ? `, server CPU ${serverMs} ms per request${loopText}` : ''}`);
  }
  // The connector targets' ratios again, in alternating rounds (paired.ts), on the shared machine, then
  // with the upstreams on a CPU of their own (placement.ts).
  const pairs = CONNECTOR_PAIRS.flatMap(([baseKey, callKey]) => {
    const [base, call] = [all.find((s) => s.key === baseKey), all.find((s) => s.key === callKey)];
    return base && call && PAIRED_ROUNDS >= 1 ? [{ base, call }] : [];
  });
  const paired = new Map<string, PairedRatios>();
  for (const { base, call } of pairs) {
    const result = await pairedRatios(target, base, call, PAIRED_ROUNDS, PAIRED_SECONDS);
    paired.set(call.key, result);
    console.log(`bench [${kind}] ${call.key}/${base.key} in ${PAIRED_ROUNDS} alternating rounds of ${PAIRED_SECONDS} s: ${ratiosText(result)}`);
  }
  const apart = pairs.length && databaseUrl && APART ? await apartRounds(kind, server, all, databaseUrl, pairs, target) : new Map<string, NonNullable<Measurement['pairedApart']>>();
  const rate = Math.max(1, Math.floor(maxima.get('B')!.rps / 2));
  const measurements: Measurement[] = [];
  let whoamiWindow: [Date, Date] | null = null;
  for (const scenario of all) {
    const from = new Date();
    const fixed = await latencyAt(target(scenario), scenario, SECONDS, rate);
    if (scenario.key === 'B') whoamiWindow = [from, new Date()];
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
      notSent: fixed.notSent,
      ...(cpu.has(scenario.key) ? { cpuMsPerRequest: cpu.get(scenario.key)! } : {}),
      ...(paired.has(scenario.key) ? { paired: paired.get(scenario.key)! } : {}),
      ...(apart.has(scenario.key) ? { pairedApart: apart.get(scenario.key)! } : {}),
    });
    console.log(`bench [${kind}] ${scenario.key} at ${rate} req/s: p50 ${fixed.latencyMs.p50} ms, p99 ${fixed.latencyMs.p99} ms`);
  }
  const floor = await harnessFloor(rate, SECONDS);
  console.log(`bench [${kind}] plain Node.js server at ${rate} req/s: p50 ${floor.p50} ms, p99 ${floor.p99} ms`);
  // By now the call log has flushed B's calls (it writes at least once a second).
  const handler = databaseUrl && whoamiWindow ? await handlerLatency(databaseUrl, 'whoami', ...whoamiWindow) : null;
  if (handler) console.log(`bench [${kind}] B inside the handler: p50 ${handler.p50} ms, p99 ${handler.p99} ms (${handler.calls} calls)`);
  return { measurements, tail: { rate, floor, handler } };
}

/**
 * The connector pairs' rounds again with the upstreams on a CPU of their own and the server, its database
 * backends and the load generator (this process) on the others: G against B without the upstream's CPU
 * taken from Gatehouse's cores, as in a deployment where the upstream is another server. Every process is
 * given every CPU back afterwards, for the fixed-rate runs.
 */
async function apartRounds(
  kind: string,
  server: BenchServer,
  all: Scenario[],
  databaseUrl: string,
  pairs: { base: Scenario; call: Scenario }[],
  target: (scenario: Scenario) => string,
): Promise<Map<string, NonNullable<Measurement['pairedApart']>>> {
  const results = new Map<string, NonNullable<Measurement['pairedApart']>>();
  const placement = apartPlacement();
  if ('unavailable' in placement) {
    console.log(`bench [${kind}]: no rounds with the upstreams apart: ${placement.unavailable}`);
    return results;
  }
  const upstreams = [...new Set(all.flatMap((scenario) => (scenario.upstreamPid === undefined ? [] : [scenario.upstreamPid])))];
  const rest = async () => [server.pid, process.pid, ...(await databaseBackends(databaseUrl))];
  // The pool may open backends during a round: they are pinned before the next.
  const pinRest = async () => pin(await rest(), placement.rest);
  try {
    pin(upstreams, placement.upstream);
    for (const { base, call } of pairs) {
      const result = await pairedRatios(target, base, call, PAIRED_ROUNDS, PAIRED_SECONDS, pinRest);
      results.set(call.key, { ...result, cpus: { upstream: placement.upstream, rest: placement.rest } });
      console.log(`bench [${kind}] ${call.key}/${base.key} with the upstreams on CPU ${placement.upstream}, the rest on ${placement.rest}: ${ratiosText(result)}`);
    }
  } finally {
    pin([...upstreams, ...(await rest())], placement.all);
  }
  return results;
}

function ratiosText(result: PairedRatios): string {
  const rounds = result.rounds?.map(({ base, call }) => `${call}/${base}`).join(', ');
  return `${result.ratios.map((ratio) => ratio.toFixed(2)).join(', ')}${rounds ? ` (req/s: ${rounds})` : ''}`;
}

/**
 * B with a thousand stored access tokens (the connections' own plus filler), measured first; then, after
 * the other scenarios, B once filler has brought the database to BENCH_SCALE_TOKENS tokens over a tenth
 * as many grants. A is measured beside each so that a change in the machine's speed shows as such.
 */
async function startScaleRun(kind: string, server: BenchServer, databaseUrl: string, connections: Connection[]): Promise<{ finish(): Promise<ScaleRun> }> {
  const whoami = whoamiScenario(connections);
  const point = async (filler: { tokens: number; grants: number }): Promise<ScalePoint> => {
    await maxThroughput(server.url, BASELINE, WARMUP_SECONDS);
    await maxThroughput(server.url, whoami, WARMUP_SECONDS);
    const a = await maxThroughput(server.url, BASELINE, SECONDS);
    const b = await maxThroughput(server.url, whoami, SECONDS);
    const fixed = await latencyAt(server.url, whoami, SECONDS, Math.max(1, Math.floor(b.rps / 2)));
    console.log(`bench [${kind}] scale: ${filler.tokens} tokens: B ${b.rps.toFixed(0)} req/s (A ${a.rps.toFixed(0)}), p99 ${fixed.latencyMs.p99} ms`);
    return { tokens: filler.tokens, grants: filler.grants, baselineRps: a.rps, whoamiRps: b.rps, latencyMs: fixed.latencyMs, errors: b.errors + fixed.errors + a.errors };
  };
  const before = await point(await seedFiller(databaseUrl, SMALL_TOKENS, `${server.url}/mcp`));
  return {
    async finish() {
      console.log(`bench [${kind}] scale: seeding ${SCALE_TOKENS} tokens…`);
      const seeded = await seedFiller(databaseUrl, SCALE_TOKENS, `${server.url}/mcp`);
      console.log(`bench [${kind}] scale: seeded in ${seeded.seconds.toFixed(0)} s, vacuumed in ${seeded.vacuumSeconds.toFixed(0)} s`);
      const after = await point(seeded);
      return { before, after, seedSeconds: seeded.seconds, vacuumSeconds: seeded.vacuumSeconds };
    },
  };
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
