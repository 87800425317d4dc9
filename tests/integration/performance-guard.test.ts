// The performance regression guard (issue: performance): a short version of the benchmark's A (a route
// with no database) and B (/mcp tools/call whoami, the whole authorization hot path) against the
// production build on PostgreSQL. It compares the two measured in the same run — never absolute times —
// and fails when B falls below 0.35 of A: a change that makes the hot path several times slower is
// caught here. `npm run bench` measures the real thing (the target there is 0.5).
//
// CI runs other test files beside this one, and their load comes and goes within seconds. So A and B
// are measured in short slices in A-B-B-A order (a drift in load over a round weighs on both alike), and
// the verdict is the median of the rounds' ratios: a burst of load from a neighbour that lands on one
// slice moves one round, not the verdict. A real regression moves every round.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxThroughput } from '../../bench/measure';
import { BASELINE, whoamiScenario, type Scenario } from '../../bench/scenarios';
import { connectClients, type Connection } from '../../bench/tokens';
import { DATABASES } from '../helpers/databases';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const MIN_RATIO = 0.35;
const ROUNDS = 7;
const SECONDS = 1;

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
    const ratios: number[] = [];
    const statuses: Record<string, number> = {};
    const measure = async (scenario: Scenario) => {
      const result = await maxThroughput(server.url, scenario, SECONDS);
      if (scenario === whoami) for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
      return result.requests;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const a1 = await measure(BASELINE);
      const b1 = await measure(whoami);
      const b2 = await measure(whoami);
      const a2 = await measure(BASELINE);
      ratios.push((b1 + b2) / Math.max(1, a1 + a2));
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    const ratio = sorted[Math.floor(sorted.length / 2)]!;
    console.log(`performance guard: B/A per round ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${ratio.toFixed(2)}`);
    expect(Object.keys(statuses), 'every whoami call answered 200').toEqual(['200']);
    expect(ratio).toBeGreaterThanOrEqual(MIN_RATIO);
  });
});
