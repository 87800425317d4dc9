// The HTTP requests this process is answering, and how to stop taking new ones and let those finish.
// Next.js creates its HTTP server before Gatehouse's code runs and hands it to no one, so the server and
// its requests are seen through Node's documented `http.server.*` diagnostics channels instead.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type Started = { request: IncomingMessage; response: ServerResponse; server: Server };

type DrainState = { servers: Set<Server>; inFlight: Set<ServerResponse>; draining: boolean; settled?: () => void };

const holder = globalThis as unknown as { gatehouseDrain?: DrainState };

/** Starts watching requests; call once, before the first one worth draining. */
export function trackRequests(): void {
  if (holder.gatehouseDrain) return;
  const state: DrainState = { servers: new Set(), inFlight: new Set(), draining: false };
  holder.gatehouseDrain = state;
  subscribe('http.server.request.start', (message) => {
    const { response, server } = message as Started;
    state.servers.add(server);
    state.inFlight.add(response);
    // A keep-alive connection must not carry a next request once draining: this answer closes it.
    if (state.draining) response.shouldKeepAlive = false;
    const done = () => {
      state.inFlight.delete(response);
      if (state.draining) {
        server.closeIdleConnections();
        if (state.inFlight.size === 0) state.settled?.();
      }
    };
    response.once('finish', done);
    response.once('close', done);
  });
}

/**
 * Stops accepting connections (new ones are refused from now on), lets the requests in flight finish —
 * their keep-alive connections closed after their answer — and resolves when they have, or after
 * `timeoutMs`, when whatever is left is cut.
 */
export async function drainRequests(timeoutMs: number): Promise<void> {
  const state = holder.gatehouseDrain;
  if (!state) return;
  state.draining = true;
  for (const response of state.inFlight) {
    if (!response.headersSent) response.shouldKeepAlive = false;
  }
  for (const server of state.servers) {
    server.close();
    server.closeIdleConnections();
  }
  if (state.inFlight.size > 0) {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      state.settled = resolve;
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
  }
  for (const server of state.servers) server.closeAllConnections();
}
