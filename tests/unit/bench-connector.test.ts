// The benchmark's connector reading (bench/report.ts connectorLine): G against B and H from one run, with
// the targets met or not as measured — never a fixed verdict.
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/measure';
import { apartPlacement, isLocalDatabase, parseCpuList } from '../../bench/placement';
import { connectorLine } from '../../bench/report';
import { isEchoAnswer, isToolAnswer } from '../../bench/scenarios';

function measured(key: string, maxRps: number, p50: number): Measurement {
  return { key, label: key, maxRps, fixedRate: 200, achievedRps: 200, latencyMs: { p50, p90: p50 * 2, p99: p50 * 4 }, errors: 0, requests: 1000, statuses: {}, notSent: 0 };
}

describe('the connector line of the benchmark report', () => {
  it('says whether each target is met, from the numbers of the run', () => {
    expect(connectorLine([measured('B', 500, 2), measured('G', 400, 5.5), measured('H', 900, 1.5)])).toBe(
      'Connector calls: G/B maximum = 0.8 (target ≥ 0.70: met); G p50 − B p50 = 3.5 ms at 200 req/s (target ≤ 5 ms: met); H, the same call straight to the upstream: 900 req/s, p50 1.5 ms.',
    );
    const missed = connectorLine([measured('B', 500, 2), measured('G', 300, 9)])!;
    expect(missed).toContain('G/B maximum = 0.6 (target ≥ 0.70: not met)');
    expect(missed).toContain('G p50 − B p50 = 7 ms at 200 req/s (target ≤ 5 ms: not met)');
    expect(missed).not.toContain('H,');
  });

  it('reads J against I (G and B under 2026-07-28) beside G against B, when they were measured', () => {
    expect(connectorLine([measured('B', 500, 2), measured('G', 300, 9), measured('I', 480, 2.5), measured('J', 360, 4)])).toBe(
      'Connector calls: G/B maximum = 0.6 (target ≥ 0.70: not met); G p50 − B p50 = 7 ms at 200 req/s (target ≤ 5 ms: not met); ' +
        'under 2026-07-28, J/I maximum = 0.75 (target ≥ 0.70: met); J p50 − I p50 = 1.5 ms at 200 req/s (target ≤ 5 ms: met).',
    );
  });

  it('shows the server CPU per request beside the ratio, when it was read', () => {
    const withCpu = (m: Measurement, server: number): Measurement => ({ ...m, cpuMsPerRequest: { server, upstream: 0.5 } });
    expect(connectorLine([withCpu(measured('B', 500, 2), 1.6), withCpu(measured('G', 300, 9), 2)])).toContain(
      'G/B maximum = 0.6 (target ≥ 0.70: not met) (server CPU per request: B 1.6 ms, G 2 ms; B/G = 0.8); G p50',
    );
  });

  it("adds the event loop's time on a CPU and waiting for one, when it was read", () => {
    const withLoop = (m: Measurement, server: number, running: number, waiting: number): Measurement => ({ ...m, cpuMsPerRequest: { server, upstream: 0.5, eventLoop: { running, waiting } } });
    expect(connectorLine([withLoop(measured('B', 500, 2), 1.6, 1.2, 0.1), withLoop(measured('G', 300, 9), 2, 1.6, 0.4)])).toContain(
      '(server CPU per request: B 1.6 ms, G 2 ms; B/G = 0.8; event loop per request on a CPU B 1.2 ms, G 1.6 ms (B/G = 0.75), waiting for one B 0.1 ms, G 0.4 ms); G p50',
    );
  });

  it('reads K (G to a stateless upstream) against B, with the upstream CPU of both, not as a target', () => {
    const upstreamCpu = (m: Measurement, upstream: number): Measurement => ({ ...m, cpuMsPerRequest: { server: 2, upstream } });
    const line = connectorLine([measured('B', 500, 2), upstreamCpu(measured('G', 400, 4), 0.15), upstreamCpu(measured('K', 320, 6), 0.62)])!;
    expect(line).toContain("; K, G to a stateless upstream: K/B maximum = 0.64 (the upstream's CPU per call: G 0.15 ms, K 0.62 ms).");
    expect(line).not.toContain('K/B maximum = 0.64 (target');
  });

  it('reads the throughput target from the median of the alternating rounds when they were measured, the table ratio beside it', () => {
    const paired = (ratios: number[], errors = 0): Measurement => ({ ...measured('G', 300, 4), paired: { against: 'B', seconds: 3, ratios, errors } });
    // The table's single slice says 0.6 (not met); the rounds' median says 0.72 (met): the median decides.
    expect(connectorLine([measured('B', 500, 2), paired([0.66, 0.75, 0.72, 0.8, 0.7])])).toContain(
      'G/B maximum = 0.6 in the table; in 5 alternating rounds of 3 s 0.66–0.8, median 0.72 (target ≥ 0.70: met); G p50',
    );
    // An even count: the mean of the two middle ones. Errors in the rounds are said.
    expect(connectorLine([measured('B', 500, 2), paired([0.7, 0.6, 0.64, 0.9], 3)])).toContain(
      'G/B maximum = 0.6 in the table; in 4 alternating rounds of 3 s 0.6–0.9, 3 errors in them, median 0.67 (target ≥ 0.70: not met)',
    );
    // Rounds against another scenario, or none, leave the table's ratio as the reading.
    const against = { ...measured('G', 400, 4), paired: { against: 'I', seconds: 3, ratios: [0.5], errors: 0 } };
    expect(connectorLine([measured('B', 500, 2), against])).toContain('G/B maximum = 0.8 (target ≥ 0.70: met)');
  });

  it('adds the rounds with the upstreams on a CPU of their own, with a verdict of their own, after the shared reading', () => {
    const apart = (ratios: number[], against = 'B'): Measurement => ({
      ...measured('G', 300, 4),
      paired: { against: 'B', seconds: 3, ratios: [0.6, 0.64, 0.66], errors: 0 },
      pairedApart: { against, seconds: 3, ratios, errors: 0, cpus: { upstream: '1', rest: '0' } },
    });
    const line = connectorLine([measured('B', 500, 2), apart([0.81, 0.76, 0.9])])!;
    // The shared machine's verdict stays first and is not replaced.
    expect(line).toContain(
      'median 0.64 (target ≥ 0.70: not met); with the upstreams on a CPU of their own (CPU 1; the server, its database backends and the load generator on 0), in 3 rounds 0.76–0.9, median 0.81 (target ≥ 0.70: met)',
    );
    expect(connectorLine([measured('B', 500, 2), apart([0.6, 0.69])])).toContain('median 0.65 (target ≥ 0.70: not met)');
    // Rounds against another scenario are not this pair's.
    expect(connectorLine([measured('B', 500, 2), apart([0.9], 'I')])).not.toContain('of their own');
  });

  it('is left out when G was not measured', () => {
    expect(connectorLine([measured('A', 900, 1), measured('B', 500, 2)])).toBeNull();
  });
});

describe('what G and H count as answered', () => {
  const answer = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });
  it('the echo of the text only: an error in band, another text or no JSON-RPC result is an error', () => {
    expect(isEchoAnswer(answer({ content: [{ type: 'text', text: 'bench' }], isError: false }))).toBe(true);
    expect(isEchoAnswer(answer({ content: [{ type: 'text', text: 'bench' }] }))).toBe(true);
    expect(isEchoAnswer(answer({ content: [{ type: 'text', text: 'bench' }], isError: true }))).toBe(false);
    expect(isEchoAnswer(answer({ content: [{ type: 'text', text: 'The connector is failing: retry in 30 s.' }], isError: true }))).toBe(false);
    expect(isEchoAnswer(answer({ content: [] }))).toBe(false);
    expect(isEchoAnswer(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool' } }))).toBe(false);
    expect(isEchoAnswer('event: message\ndata: {}')).toBe(false);
  });
});

describe('what B counts as answered', () => {
  it("a tool's result, not its refusal in band or a JSON-RPC error", () => {
    expect(isToolAnswer(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [], isError: false } }))).toBe(true);
    expect(isToolAnswer(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [], isError: true } }))).toBe(false);
    expect(isToolAnswer(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Unauthorized' } }))).toBe(false);
    expect(isToolAnswer('not json')).toBe(false);
  });
});

describe('the CPUs of the apart placement', () => {
  it("reads taskset's lists, and gives the upstreams the last allowed CPU", () => {
    expect(parseCpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(parseCpuList(' 3\n')).toEqual([3]);
    expect(parseCpuList('2-1')).toBeNull();
    expect(parseCpuList('zero')).toBeNull();
    expect(apartPlacement([0, 1])).toEqual({ upstream: '1', rest: '0', all: '0,1' });
    expect(apartPlacement([2, 3, 6])).toEqual({ upstream: '6', rest: '2,3', all: '2,3,6' });
    expect(apartPlacement([0])).toEqual({ unavailable: 'the benchmark may run on a single CPU only' });
    expect(apartPlacement(null)).toHaveProperty('unavailable');
  });

  it("pins the database's backends only when the database is on this machine", () => {
    expect(isLocalDatabase('postgresql://postgres@127.0.0.1:5432/test')).toBe(true);
    expect(isLocalDatabase('postgresql://postgres@localhost/test')).toBe(true);
    expect(isLocalDatabase('postgresql://postgres@[::1]:5432/test')).toBe(true);
    expect(isLocalDatabase('postgresql:///test?host=/var/run/postgresql')).toBe(true);
    expect(isLocalDatabase('postgresql://postgres@db.internal:5432/test')).toBe(false);
    expect(isLocalDatabase('postgresql://postgres@10.0.0.5/test')).toBe(false);
  });
});
