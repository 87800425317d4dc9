// The HTTP requests this process is answering, and how to stop taking new ones and let those finish.
// Next.js creates its HTTP server before Gatehouse's code runs and hands it to no one, so the server and
// its requests are seen through Node's documented `http.server.*` diagnostics channels instead.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { existingProcessSingleton, processSingleton } from '@/lib/server/process-singleton';

type Started = { request: IncomingMessage; response: ServerResponse; server: Server };

type DrainState = { servers: Set<Server>; inFlight: Set<ServerResponse>; draining: boolean };

/** Starts watching requests; call once, before the first one worth draining. */
export function trackRequests(): void {
  processSingleton('drain', watchRequests);
}

function watchRequests(): DrainState {
  const state: DrainState = { servers: new Set(), inFlight: new Set(), draining: false };
  subscribe('http.server.request.start', (message) => {
    const { response, server } = message as Started;
    state.servers.add(server);
    state.inFlight.add(response);
    // A keep-alive connection must not carry a next request once draining: this answer closes it.
    if (state.draining) response.shouldKeepAlive = false;
    const done = () => state.inFlight.delete(response);
    response.once('finish', done);
    response.once('close', done);
  });
  return state;
}

/**
 * Stops accepting connections (new ones are refused from now on) and lets the requests in flight finish,
 * each answer closing its connection. Connections that are open but idle are *not* cut: a reverse proxy
 * may be sending its next request on one at this very moment, and a connection closed under it fails that
 * request (nginx answers 502, and cannot retry a POST that reached an instance). They keep being served —
 * every answer now closes its connection — until their client closes them or they reach the server's
 * keep-alive timeout (5 s; a proxy's idle timeout towards instances should be shorter). Resolves when every
 * connection has ended, or after `timeoutMs`, when whatever is left is cut.
 */
export async function drainRequests(timeoutMs: number): Promise<void> {
  const state = existingProcessSingleton<DrainState>('drain');
  if (!state) return;
  state.draining = true;
  for (const response of state.inFlight) {
    if (!response.headersSent) response.shouldKeepAlive = false;
  }
  let timer: NodeJS.Timeout | undefined;
  const closed = [...state.servers].map(
    // net.Server's close only stops listening and calls back once every connection has ended; http.Server's
    // own close would also cut the idle connections at once.
    (server) => new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve())),
  );
  await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  for (const server of state.servers) server.closeAllConnections();
}
