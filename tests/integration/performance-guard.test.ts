// The performance regression guard (issue: performance): a short version of the benchmark's A (a route
// with no database) and B (/mcp tools/call whoami, the whole authorization hot path) against the
// production build on PostgreSQL. It compares the two measured in the same run, interleaved so that
// whatever else the machine is doing weighs on both alike — never absolute times — and fails when B
// falls below 0.35 of A: a change that makes the hot path several times slower is caught here.
// `npm run bench` measures the real thing (the target there is 0.5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxThroughput } from '../../bench/measure';
import { BASELINE, whoamiScenario } from '../../bench/scenarios';
import { connectClients, type Connection } from '../../bench/tokens';
import { DATABASES } from '../helpers/databases';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const MIN_RATIO = 0.35;
const ROUNDS = 4;
const SECONDS = 2;

describe.runIf(DATABASES.includes('postgres'))('the /mcp hot path against a baseline route (PostgreSQL)', () => {
  let server: RunningServer;
  let connections: Connection[];

  beforeAll(async () => {
    // The limiter still runs on every call; its budget is raised so that it does not refuse them.
    server = await startServer({ database: 'postgres', env: { MCP_RATE_LIMIT_PER_MINUTE: '10000000', REGISTRATION_RATE_LIMIT: '1000' } });
    connections = await connectClients(server.url, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD }, 20);
  });
  afterAll(async () => server?.stop());

  it(`serves whoami at no less than ${MIN_RATIO} of the baseline's rate, every call answered 200`, async () => {
    const whoami = whoamiScenario(connections);
    // Warm-up: route modules load, V8 optimizes, the pool fills.
    await maxThroughput(server.url, BASELINE, SECONDS);
    await maxThroughput(server.url, whoami, SECONDS);
    let baseline = 0;
    let hotPath = 0;
    const statuses: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const a = await maxThroughput(server.url, BASELINE, SECONDS);
      const b = await maxThroughput(server.url, whoami, SECONDS);
      baseline += a.requests;
      hotPath += b.requests;
      for (const [status, count] of Object.entries(b.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    }
    const ratio = hotPath / baseline;
    console.log(`performance guard: A ${baseline} requests, B ${hotPath} requests in ${ROUNDS} × ${SECONDS} s each; B/A = ${ratio.toFixed(2)}`);
    expect(Object.keys(statuses), 'every whoami call answered 200').toEqual(['200']);
    expect(ratio).toBeGreaterThanOrEqual(MIN_RATIO);
  });
});
