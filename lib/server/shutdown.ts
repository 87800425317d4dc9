// Stopping cleanly on SIGTERM/SIGINT (Docker, systemd, Ctrl-C): no new connection is accepted, the
// requests in flight are answered, then the buffered call log — which by then holds every answered /mcp
// call — is written and the database closed (for the embedded database, so that its files are
// consistent), and the process exits with 128 + the signal's number: 143 for SIGTERM, 130 for SIGINT.
// Next.js's own signal handling is turned off (NEXT_MANUAL_SIG_HANDLE, set by the start tooling and the
// Dockerfile) so that it does not exit first.
import { flushCallLog } from '@/lib/audit/call-log';
import { closeConnectorClients } from '@/lib/connectors/forward';
import { closeDatabase } from '@/lib/db/client';
import { drainRequests, trackRequests } from './drain';
import { processSingleton } from '@/lib/server/process-singleton';

/** How long requests in flight may take to finish; with the writes below, within Docker's 10 s grace. */
const DRAIN_TIMEOUT_MS = 5_000;

export function installShutdown(): void {
  processSingleton('shutdown', installSignalHandlers);
}

function installSignalHandlers(): true {
  trackRequests();
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    process.once(signal, () => {
      void (async () => {
        await drainRequests(DRAIN_TIMEOUT_MS);
        await withTimeout(closeConnectorClients(), 1_000);
        await withTimeout(flushCallLog(), 3_000);
        await withTimeout(closeDatabase(), 3_000);
        process.exit(code);
      })();
    });
  }
  return true;
}

function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}
