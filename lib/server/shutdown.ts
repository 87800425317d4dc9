// Stopping cleanly on SIGTERM/SIGINT (Docker, systemd, Ctrl-C): the buffered call log is written and
// the database closed — for the embedded database, so that its files are consistent — before the
// process exits. Next.js's own signal handling is turned off (NEXT_MANUAL_SIG_HANDLE, set by the start
// tooling and the Dockerfile) so that it does not exit first.
import { flushCallLog } from '@/lib/audit/call-log';
import { closeDatabase } from '@/lib/db/client';

const state = globalThis as unknown as { gatehouseShutdown?: boolean };

export function installShutdown(): void {
  if (state.gatehouseShutdown) return;
  state.gatehouseShutdown = true;
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    process.once(signal, () => {
      void (async () => {
        await withTimeout(flushCallLog(), 3_000);
        await withTimeout(closeDatabase(), 3_000);
        process.exit(code);
      })();
    });
  }
}

function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}
