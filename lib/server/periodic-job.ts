// A periodic job that one instance runs at a time (the sweeper, the connectors' catalog refresh): soon
// after start, then every `intervalMs`; on PostgreSQL only while this instance holds the job's leader lock
// (lib/db/leader-lock.ts), so that several instances run it once per period between them. The embedded
// database has one process by construction: it always runs. A run longer than the period is not started
// twice, and a failed run is logged and tried again at the next period.
import { outsideTransaction } from '@/lib/db/client';
import { LeaderLock } from '@/lib/db/leader-lock';
import { env } from '@/lib/env';
import { processSingleton } from './process-singleton';

export type PeriodicJob = {
  /** The per-process singleton's name: the job is started once per process however often this is called. */
  name: string;
  /** The job's advisory-lock key, unique to it (a JavaScript safe integer). */
  lockKey: number;
  intervalMs: number;
  /** When the first run is, after start (default: soon, at most 5 s). */
  firstRunMs?: number;
  /** What a run does; it returns the line to log, or null to log nothing. */
  run: () => Promise<string | null>;
  /** How the log names the job: "the housekeeping sweeps". */
  describe: string;
};

export function startPeriodicJob(job: PeriodicJob): void {
  processSingleton(job.name, () => outsideTransaction(() => schedule(job)));
}

function schedule(job: PeriodicJob): NodeJS.Timeout {
  const { database } = env();
  const lock = database.kind === 'postgres' ? new LeaderLock(database.url, job.lockKey) : null;
  let leading = lock === null;
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      if (lock) {
        const held = await lock.acquire();
        if (held && !leading) console.log(`gatehouse: this instance now runs ${job.describe}`);
        leading = held;
        if (!held) return;
      }
      const line = await job.run();
      if (line) console.log(`gatehouse: ${line}`);
    } catch (error) {
      console.error(`gatehouse: ${job.describe} failed`, (error as Error).message);
    } finally {
      running = false;
    }
  };
  setTimeout(run, job.firstRunMs ?? Math.min(5_000, job.intervalMs)).unref();
  const timer = setInterval(run, job.intervalMs);
  timer.unref();
  return timer;
}
