// Stopping cleanly on SIGTERM/SIGINT (Docker, systemd, Ctrl-C): no new connection is accepted, the
// requests in flight are answered, then the buffered call log — which by then holds every answered /mcp
// call — is written and the database closed (for the embedded database, so that its files are
// consistent), and the process exits with 128 + the signal's number: 143 for SIGTERM, 130 for SIGINT (141, as for
// SIGPIPE, when it stops because its log can no longer be written).
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
    process.once(signal, () => void stop(code));
  }
  // Standard output or error closed under the server (the process reading its logs is gone: `npm start`
  // killed, a pipe closed): every write then fails with EPIPE, and an unheard 'error' event is an
  // uncaught exception that Next.js logs — with another write that fails. That loop held a core at
  // 100 % and stopped the server answering. A server nobody can hear stops as on SIGTERM instead, with
  // 128 + SIGPIPE's number.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') void stop(141);
    });
  }
  return true;
}

let stopping: Promise<void> | null = null;

function stop(code: number): Promise<void> {
  stopping ??= (async () => {
    await drainRequests(DRAIN_TIMEOUT_MS);
    await withTimeout(closeConnectorClients(), 1_000);
    await withTimeout(flushCallLog(), 3_000);
    await withTimeout(closeDatabase(), 3_000);
    process.exit(code);
  })();
  return stopping;
}

function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}
