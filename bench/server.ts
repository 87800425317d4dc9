// The production build, started as `npm start` starts it, on a free port with a database of the
// benchmark's choosing; its peak memory read from the kernel (VmHWM) while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, buildIsStale, buildLayout, PROJECT_ROOT, serverEnvironment, serverNodeFlags } from '@/lib/cli/standalone';
import { RUN_AUTH_SECRET } from './database';

export type BenchServer = { url: string; pid: number; rssMb(): number; peakRssMb(): number; resetPeak(): void; stop(): Promise<void> };

export function ensureBuild(): void {
  if (buildIsStale()) {
    console.log('bench: building the production app…');
    buildApp();
  }
}

export async function startBenchServer(databaseUrl: string | null, extraEnv: Record<string, string>, cpuProfileDir?: string): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...serverEnvironment({ port, host: '127.0.0.1', dataDir }),
    PUBLIC_URL: `http://localhost:${port}`,
    DEMO_PASSWORD: 'bench-demo-password',
    AUTH_SECRET: RUN_AUTH_SECRET,
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const profile = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [];
  const flags = [...serverNodeFlags(), ...profile, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...flags, buildLayout().serverPath], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // BENCH_SERVER_LOG=<file>: keep the server's whole output (e.g. with BENCH_NODE_FLAGS=--trace-gc).
  const log = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG) : null;
  const keep = (chunk: Buffer) => {
    output += chunk;
    log?.write(chunk);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://localhost:${port}`;
  await waitUntilReady(url, child, () => output);
  let baseline = 0;
  return {
    url,
    pid: child.pid!,
    rssMb: () => residentMb(child.pid!),
    peakRssMb: () => Math.max(readStatusKb(child.pid!, 'VmHWM'), baseline) / 1024,
    resetPeak: () => {
      // /proc/<pid>/clear_refs "5" resets VmHWM to the current RSS (Linux).
      try {
        baseline = 0;
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
      } catch {
        baseline = readStatusKb(child.pid!, 'VmRSS');
      }
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The CPU time a process has used so far, user and system, all its threads, in ms (Linux: /proc/<pid>/stat
 * counts it in USER_HZ ticks, 100 a second on every Linux architecture Node runs on).
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The time a process's main thread — Node's event loop — has spent on a CPU, and runnable but waiting for
 * one, so far, in ms (Linux: /proc/<pid>/schedstat is the thread group leader's, in ns; the kernel's
 * Documentation/scheduler/sched-stats.rst). The server's throughput is bounded by its event loop, so these
 * two say whether a slower scenario did more work there or got the CPU less often.
 */
export function mainThreadMs(pid: number): { running: number; waiting: number } {
  try {
    const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { running: running! / 1e6, waiting: waiting! / 1e6 };
  } catch {
    return { running: Number.NaN, waiting: Number.NaN };
  }
}

/** A process's resident memory now, in MB (Linux). */
export function residentMb(pid: number): number {
  return readStatusKb(pid, 'VmRSS') / 1024;
}

function readStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output()}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the server did not become ready:\n${output()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
