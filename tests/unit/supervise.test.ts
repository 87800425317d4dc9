// npm start's restart policy (lib/cli/supervise.ts), with real child processes standing in for the server:
// each is a small Node script that prints the ready line or not, then exits as it is told.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READY_LINE, superviseServer, type SupervisorPolicy } from '@/lib/cli/supervise';

const FAST: SupervisorPolicy = { initialDelayMs: 100, maxDelayMs: 800, stableMs: 60_000, maxFailedStarts: 5 };

/**
 * A stand-in server: on its n-th start (counted in a file) it follows the n-th step, or the last one.
 * `crash` exits 134 (as V8 does when the heap is exhausted), `fail` exits 1 before it is ready.
 */
type Step = 'crash' | 'fail' | 'exit0' | 'serve' | 'kill9';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'gatehouse-supervise-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function standIn(steps: Step[]): { args: string[]; starts: () => number[] } {
  const counter = join(folder, 'starts');
  writeFileSync(counter, '');
  const script = `
    const fs = require('node:fs');
    fs.appendFileSync(${JSON.stringify(counter)}, process.pid + '\\n');
    const n = fs.readFileSync(${JSON.stringify(counter)}, 'utf8').trim().split('\\n').length;
    const steps = ${JSON.stringify(steps)};
    const step = steps[Math.min(n, steps.length) - 1];
    if (step === 'fail') { console.error('gatehouse: cannot start. PUBLIC_URL must be an http(s) origin'); process.exit(1); }
    console.log(${JSON.stringify(READY_LINE)} + 'http://localhost:0');
    if (step === 'crash') setTimeout(() => process.exit(134), 20);
    if (step === 'kill9') setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20);
    if (step === 'exit0') setTimeout(() => process.exit(0), 20);
    if (step === 'serve') setInterval(() => {}, 1000);
  `;
  return { args: ['-e', script], starts: () => readFileSync(counter, 'utf8').trim().split('\n').filter(Boolean).map(Number) };
}

function supervised(steps: Step[], policy = FAST) {
  const server = standIn(steps);
  const lines: string[] = [];
  const supervisor = superviseServer(process.execPath, server.args, { stdio: 'ignore' }, policy, (line) => lines.push(line));
  return { supervisor, lines, starts: server.starts };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('npm start keeps its server running', () => {
  it('restarts a server that crashed or was killed, with a growing delay, and logs each crash', async () => {
    const { supervisor, lines, starts } = supervised(['crash', 'kill9', 'crash', 'exit0']);
    const began = Date.now();
    expect(await supervisor.done).toBe(0);
    expect(starts()).toHaveLength(4);
    expect(lines).toEqual([
      expect.stringMatching(/^the server stopped unexpectedly \(exit code 134\) after \d+ s; restarting in 0\.1 s$/),
      expect.stringMatching(/^the server stopped unexpectedly \(signal SIGKILL\) after \d+ s; restarting in 0\.2 s$/),
      expect.stringMatching(/^the server stopped unexpectedly \(exit code 134\) after \d+ s; restarting in 0\.4 s$/),
    ]);
    // 100 + 200 + 400 ms of back-off at least.
    expect(Date.now() - began).toBeGreaterThanOrEqual(700);
  });

  it('does not restart a server that exits cleanly', async () => {
    const { supervisor, lines, starts } = supervised(['exit0']);
    expect(await supervisor.done).toBe(0);
    expect(starts()).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('does not restart a server that fails before it is ready on its first start (a configuration error)', async () => {
    const { supervisor, lines, starts } = supervised(['fail']);
    expect(await supervisor.done).toBe(1);
    expect(starts()).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('gives up after five restarts in a row that never become ready, instead of looping', async () => {
    const { supervisor, lines, starts } = supervised(['crash', 'fail']);
    expect(await supervisor.done).toBe(1);
    expect(starts()).toHaveLength(6);
    expect(lines.at(-1)).toBe('the server failed to start 5 times in a row (last: exit code 1); giving up');
  });

  it('stops the server on SIGTERM and SIGINT, restarting nothing, with its exit code', async () => {
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      const { supervisor, lines, starts } = supervised(['serve']);
      await until(() => starts().length === 1);
      await new Promise((resolve) => setTimeout(resolve, 200)); // past the ready line
      supervisor.stop(signal);
      expect(await supervisor.done).toBe(code);
      expect(starts()).toHaveLength(1);
      expect(lines).toEqual([]);
    }
  });

  it('stops during the delay before a restart without starting the server again', async () => {
    const { supervisor, lines, starts } = supervised(['crash', 'serve'], { ...FAST, initialDelayMs: 2_000 });
    await until(() => lines.length === 1);
    supervisor.stop('SIGTERM');
    expect(await supervisor.done).toBe(143);
    expect(starts()).toHaveLength(1);
  });
});
