// `npm start` keeps its server running: a server process that dies (out of memory, a crash, a kill) is
// logged and started again after a delay, instead of leaving Gatehouse down with nobody told. The policy:
// - a server that exits with code 0, or that npm start itself stopped (SIGTERM, SIGINT), stays stopped,
//   and npm start exits with its code;
// - a server that fails before it is ready on its first start (a configuration or migration error: its
//   message is already printed) is not restarted either: starting it again would fail the same way;
// - any other exit is a crash: restarted after 1 s, then 2, 4 … up to 30 s while the crashes keep coming,
//   back to 1 s once a server has stayed up for a minute;
// - restarts that never become ready stop after five in a row: npm start exits 1 rather than loop.
// package.json runs this as `node --import tsx`, one process that receives SIGTERM itself. The tsx CLI
// would relay the signal to a child and SIGKILL that child when it does not acknowledge within 30 ms:
// under load the supervisor died that way and left its server running, orphaned.
import { spawn, type SpawnOptions } from 'node:child_process';

/** What a server prints once it answers requests (lib/server/startup.ts). */
export const READY_LINE = 'gatehouse: ready at ';

export type SupervisorPolicy = {
  /** Delay before the first restart; doubled for each crash that follows within `stableMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A server up this long counts as healthy: the next crash starts again from `initialDelayMs`. */
  stableMs: number;
  /** Restarts in a row that never became ready before npm start gives up. */
  maxFailedStarts: number;
};

export const DEFAULT_POLICY: SupervisorPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableMs: 60_000, maxFailedStarts: 5 };

export type Supervisor = {
  /** Resolves with the exit code npm start should exit with. */
  done: Promise<number>;
  /** Stops the server with `signal` (forwarded as is) and restarts nothing afterwards. */
  stop(signal: NodeJS.Signals): void;
};

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export function superviseServer(
  command: string,
  args: string[],
  options: SpawnOptions,
  policy: SupervisorPolicy = DEFAULT_POLICY,
  log: (line: string) => void = (line) => console.error(`gatehouse: ${line}`),
): Supervisor {
  let stopping: NodeJS.Signals | null = null;
  let child: ReturnType<typeof spawn> | null = null;
  let wake: (() => void) | null = null;

  const run = async (): Promise<number> => {
    let delayMs = policy.initialDelayMs;
    let failedStarts = 0;
    for (let first = true; ; first = false) {
      const started = Date.now();
      const exit = await runOnce();
      if (stopping) return exit.code ?? SIGNAL_EXIT_CODES[stopping] ?? 1;
      if (exit.code === 0) return 0;
      const how = exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
      if (!exit.ready && first) return exit.code ?? 1;
      const upMs = Date.now() - started;
      if (upMs >= policy.stableMs) delayMs = policy.initialDelayMs;
      failedStarts = exit.ready ? 0 : failedStarts + 1;
      if (failedStarts >= policy.maxFailedStarts) {
        log(`the server failed to start ${failedStarts} times in a row (last: ${how}); giving up`);
        return 1;
      }
      log(`the server stopped unexpectedly (${how}) after ${Math.round(upMs / 1000)} s; restarting in ${(delayMs / 1000).toFixed(1)} s`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, delayMs);
      });
      wake = null;
      if (stopping) return SIGNAL_EXIT_CODES[stopping] ?? 1;
      delayMs = Math.min(delayMs * 2, policy.maxDelayMs);
    }
  };

  /** One server process, its standard output passed through and watched for the ready line. */
  const runOnce = () =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; ready: boolean }>((resolve) => {
      let ready = false;
      let tail = '';
      const server = spawn(command, args, { ...options, stdio: ['inherit', 'pipe', 'inherit'] });
      child = server;
      server.stdout!.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        if (ready) return;
        tail = (tail + chunk.toString('utf8')).slice(-4096);
        if (tail.includes(READY_LINE)) ready = true;
      });
      server.on('error', (error) => log(`cannot start the server: ${error.message}`));
      server.on('close', (code, signal) => {
        child = null;
        resolve({ code, signal, ready });
      });
    });

  return {
    done: run(),
    stop(signal) {
      stopping = signal;
      if (child) child.kill(signal);
      else wake?.();
    },
  };
}
