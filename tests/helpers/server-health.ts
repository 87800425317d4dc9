// After a hostile run: is the server still up, and is its memory flat? Memory is the server process's
// resident set (VmRSS from /proc), read after the server has been idle for a moment.
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { RunningServer } from './server';

/** Idle time before a reading: lets in-flight work, buffered call-log writes and a GC cycle finish. */
const SETTLE_MS = 2_000;

/**
 * The rule for "memory stays flat": the growth over the second half of a run may not pass
 * max(48 MiB, 15 % of the resident set after the first half). The first half absorbs the warm-up
 * (compiled routes, JIT, connection pools, caches filling to their bound); a leak proportional to the
 * requests grows again, by as much, over the second.
 */
const ALLOWED_GROWTH = { floorMiB: 48, fraction: 0.15 };

export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]) / 1024;
}

export function memoryProbe(server: RunningServer) {
  const marks: number[] = [];
  return {
    /** Reads the settled resident set: call after each half of the run. */
    async mark(): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      marks.push(await residentMiB(server.pid));
    },
    describe(): string {
      return `server RSS after each half: ${marks.map((mib) => `${mib.toFixed(0)} MiB`).join(' → ')}`;
    },
    expectFlat(): void {
      expect(marks.length).toBeGreaterThanOrEqual(2);
      const [first, last] = [marks[0]!, marks.at(-1)!];
      const allowed = Math.max(ALLOWED_GROWTH.floorMiB, first * ALLOWED_GROWTH.fraction);
      expect(last - first, `${this.describe()}; allowed growth ${allowed.toFixed(0)} MiB`).toBeLessThanOrEqual(allowed);
    },
  };
}

/** The process still runs and answers its liveness check. */
export async function expectStillUp(server: RunningServer): Promise<void> {
  expect(() => process.kill(server.pid, 0), server.output().slice(-2000)).not.toThrow();
  const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
  expect(response.status, server.output().slice(-2000)).toBe(200);
}
