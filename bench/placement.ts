// Where the benchmark's processes run on the machine's CPUs.
//
// By default everything shares every CPU: the server, the database, the load generator and the upstreams
// of the connector scenarios. On a small machine the upstream's own CPU per call is then taken from the
// cores Gatehouse runs on, although in a deployment the upstream is another server: G against B then
// also measures the upstream. The "apart" placement gives the upstreams the last CPU to themselves and
// keeps the server, the database's backends for the benchmark's database and the load generator on the
// others, so that G against B measures what the gateway itself adds. It is measured after the shared
// placement, in the same run, never instead of it (run.ts, report.ts).
//
// CPU affinity is set with taskset (util-linux: sched_setaffinity, every thread of a process, -a); a
// machine without it, or with a single CPU, has no apart placement and the benchmark says so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** The CPUs of each side, and every CPU this process may use (restored after), as taskset's lists. */
export type Apart = { upstream: string; rest: string; all: string };

/** The apart placement on this machine (the CPUs this process may run on), or why there is none. */
export function apartPlacement(allowed = allowedCpus()): Apart | { unavailable: string } {
  if (allowed === null) return { unavailable: 'taskset (util-linux) is not installed or cannot read CPU affinity here' };
  if (allowed.length < 2) return { unavailable: 'the benchmark may run on a single CPU only' };
  const upstream = allowed.at(-1)!;
  return { upstream: String(upstream), rest: allowed.slice(0, -1).join(','), all: allowed.join(',') };
}

/** The CPUs this process may run on, from taskset's list ("0-2,5"), or null when taskset cannot tell. */
function allowedCpus(): number[] | null {
  const probe = spawnSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
  if (probe.status !== 0) return null;
  return parseCpuList(probe.stdout.slice(probe.stdout.lastIndexOf(':') + 1));
}

/** "0-2,5" → [0, 1, 2, 5]; null for anything else. */
export function parseCpuList(list: string): number[] | null {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!range) return null;
    const [from, to] = [Number(range[1]), Number(range[2] ?? range[1])];
    if (to < from) return null;
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus.length ? cpus : null;
}

/** Sets the CPUs every thread of each process may run on. A process that has exited is skipped. */
export function pin(pids: readonly number[], cpus: string): void {
  for (const pid of pids) {
    const result = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
    if (result.status !== 0 && processExists(pid)) throw new Error(`bench: taskset could not pin process ${pid} to CPUs ${cpus}: ${result.stderr.trim()}`);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The database's backend processes serving `databaseUrl`'s database (the server's pool), other than the
 * one asking. They are the server's share of PostgreSQL's work; the postmaster and the cluster's other
 * processes are left where they are (they serve every database on the machine). None for a database on
 * another host, whose process ids mean nothing here; and only ids that are PostgreSQL processes on this
 * machine, so that no other process is ever pinned.
 */
export async function databaseBackends(databaseUrl: string): Promise<number[]> {
  if (!isLocalDatabase(databaseUrl)) return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((row) => row.pid).filter(isPostgresProcess);
  } finally {
    await client.end();
  }
}

/** Whether the database runs on this machine: a loopback host, or a Unix socket (no host, or a path). */
export function isLocalDatabase(databaseUrl: string): boolean {
  const url = new URL(databaseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '') || url.searchParams.get('host') || '';
  return host === '' || host.startsWith('/') || host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}
