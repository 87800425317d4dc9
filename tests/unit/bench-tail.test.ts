// The benchmark's tail readings: the harness floor is a real measurement of a plain server through the
// same pacer, and the report prints it beside B's time inside the handler.
import { describe, expect, it } from 'vitest';
import { harnessFloor } from '../../bench/floor';
import { markdown, type Report } from '../../bench/report';

describe('benchmark tail readings', () => {
  it('measures a plain Node.js server through the pacer', async () => {
    const floor = await harnessFloor(50, 1);
    expect(floor.p50).toBeGreaterThan(0);
    expect(floor.p99).toBeGreaterThanOrEqual(floor.p50);
  }, 20_000);

  it('prints the floor and the handler time under the table', () => {
    const report: Report = {
      at: '2026-11-30T00:00:00.000Z',
      machine: 'test machine',
      node: '22',
      secondsPerRun: 10,
      runs: [
        {
          database: 'PostgreSQL',
          measurements: [],
          peakRssMb: 300,
          connections: 100,
          seedSeconds: 1,
          scale: null,
          tail: { rate: 285, floor: { p50: 0.4, p90: 1.2, p99: 3.6 }, handler: { calls: 2850, p50: 1, p90: 4, p99: 24 } },
        },
      ],
    };
    expect(markdown(report)).toContain(
      "Tail at 285 req/s: a plain Node.js HTTP server (no framework) through the same pacer: p50 0.4 / p90 1.2 / p99 3.6 ms; B inside Gatehouse's /mcp handler (call log, 2850 calls): p50 1 / p90 4 / p99 24 ms.",
    );
  });
});
