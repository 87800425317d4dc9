// Forwarding a tools/call to a connector's upstream (docs/connectors.md, The forwarded call), after /mcp's
// gates let it through.
//
// - One SDK client per connector per process (client-pool.ts); opened again when the upstream answers 404
//   for its session (MCP 2025-11-25, Transports › Session Management: a restarted upstream forgot it) — the
//   call is then sent once more, since a 404 means it was not taken — or when the connection failed.
// - Gatehouse's own credential for the connector rides on every request: its header lines, or the access
//   token got with its client credentials (upstream-auth.ts). An upstream's 401 to a token means the token
//   was refused before the call was taken (revoked, expired early): a new token, and the call sent once
//   more; a second 401 is the answer. Per-call headers (the identity assertion, identity-assertion.ts, made
//   anew for each attempt) go through the transport's custom fetch (its headers are fixed at construction);
//   nothing of the caller's is ever sent (MCP 2025-11-25, Basic › Authorization: token passthrough is forbidden).
// - The caller going away cancels the upstream call (notifications/cancelled); the connector's timeout
//   does too. An answer is cut off past CONNECTOR_MAX_RESULT_BYTES while it streams in.
// - After CIRCUIT_FAILURES failures in a row a connector fails fast for CIRCUIT_OPEN_MS, on this instance:
//   a dead upstream is not waited on by every caller in turn.
// - No database connection is held here: the tool was read before, the call log is written after.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { assertNoTransaction } from '@/lib/db/open-transaction';
import { env } from '@/lib/env';
import { processSingleton } from '@/lib/server/process-singleton';
import { pooledClient, retireClient } from './client-pool';
import { upstreamTarget } from './credentials';
import type { ConnectorEndpoint } from './served';
import { openUpstream, type UpstreamTarget, upstreamError } from './upstream';
import { UpstreamError } from './upstream-errors';
import { cappedFetch, headerRecord } from './upstream-http';
import { bearerFetch, refusedAccessToken } from './upstream-auth';

export { closeConnectorClients } from './client-pool';

export const CIRCUIT_FAILURES = 5;
export const CIRCUIT_OPEN_MS = 30_000;
const SDK_TIMEOUT_MARGIN_MS = 5_000;
/** Deeper results are refused: answering them would overflow JSON.stringify's stack. */
const MAX_RESULT_DEPTH = 64;

/** An upstream's answer to tools/call, passed on unchanged (content of every kind, structured content, isError). */
export type ForwardedResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError: boolean };

export type ForwardOutcome = { ok: true; result: ForwardedResult; upstreamMs: number } | { ok: false; failure: UpstreamError | CircuitOpen | 'aborted'; upstreamMs: number | null };

/** The connector is failing fast: it failed CIRCUIT_FAILURES times in a row. */
export type CircuitOpen = { kind: 'circuit_open'; retryInSeconds: number };

export type ForwardRequest = {
  connector: ConnectorEndpoint;
  upstreamName: string;
  args: Record<string, unknown>;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  /** Headers for this call only (the identity assertion), made again for each attempt (a fresh jti). */
  headers?: () => Promise<Record<string, string>>;
};

/** What the transport's fetch knows of the call it is sending for. */
type CallContext = { headers: Record<string, string>; fail: (error: UpstreamError) => void };
const currentCall = new AsyncLocalStorage<CallContext>();

/** A connector's failures in a row, at the URL they happened at: a connector moved to a new URL starts closed. */
type Circuit = { url: string; failures: number; openUntil: number };

function circuits(): Map<string, Circuit> {
  return processSingleton('connectorCircuits', () => new Map<string, Circuit>());
}

function circuitOf(connector: { id: string; url: string }): Circuit | undefined {
  const circuit = circuits().get(connector.id);
  return circuit?.url === connector.url ? circuit : undefined;
}

/**
 * This instance's view of a connector's circuit (each instance keeps its own): closed, failing (recent
 * failures in a row, below the limit or past the open time: the next call is let through), or open.
 */
export type CircuitState = { state: 'closed' } | { state: 'failing'; failures: number } | { state: 'open'; failures: number; retryInSeconds: number };

export function circuitState(connector: { id: string; url: string }): CircuitState {
  const circuit = circuitOf(connector);
  if (!circuit || circuit.failures === 0) return { state: 'closed' };
  const now = Date.now();
  if (circuit.openUntil > now) return { state: 'open', failures: circuit.failures, retryInSeconds: Math.ceil((circuit.openUntil - now) / 1000) };
  return { state: 'failing', failures: circuit.failures };
}

export async function forwardToolCall(request: ForwardRequest): Promise<ForwardOutcome> {
  const { connector } = request;
  const circuit = circuitOf(connector);
  const now = Date.now();
  if (circuit && circuit.openUntil > now) {
    return { ok: false, failure: { kind: 'circuit_open', retryInSeconds: Math.ceil((circuit.openUntil - now) / 1000) }, upstreamMs: null };
  }
  assertNoTransaction('a connector tool call');
  const started = performance.now();
  const target = upstreamTarget(connector);
  let outcome = await callOnce(request, target);
  // Each reason to send the call once more is used at most once: a second 404 or 401 is the answer.
  const resent = new Set<'session_gone' | 'token_refused'>();
  for (;;) {
    if (outcome.ok || outcome.failure === 'aborted' || request.signal.aborted) break;
    const reason = outcome.failure.kind === 'session_gone' ? 'session_gone' : refusedAccessToken(target, outcome.failure) ? 'token_refused' : null;
    if (!reason || resent.has(reason)) break;
    resent.add(reason);
    // The upstream forgot the session (it restarted): a new one. It refused the token: bearerFetch forgot
    // it, so the next request gets a new one.
    if (reason === 'session_gone') retireClient(connector);
    outcome = await callOnce(request, target);
  }
  const upstreamMs = Math.round(performance.now() - started);
  if (outcome.ok) {
    circuits().delete(connector.id);
    return { ok: true, result: outcome.result, upstreamMs };
  }
  if (outcome.failure === 'aborted') return { ok: false, failure: 'aborted', upstreamMs };
  if (outcome.failure.kind !== 'jsonrpc') {
    // A connection that failed is not used again; a slow answer, a bad one or a refused credential says
    // nothing against the connection, which other calls may be using.
    if (outcome.failure.kind === 'unreachable' || outcome.failure.kind === 'session_gone') retireClient(connector);
    countFailure(connector);
  } else {
    // The upstream answered (with an error): it is alive.
    circuits().delete(connector.id);
  }
  return { ok: false, failure: outcome.failure, upstreamMs };
}

type CallResult = { ok: true; result: ForwardedResult } | { ok: false; failure: UpstreamError | 'aborted' };

async function callOnce(request: ForwardRequest, target: UpstreamTarget): Promise<CallResult> {
  let client: Client;
  try {
    // Opened outside any call: the initialize exchange, and the stream the SDK may keep open after it, carry
    // no call's headers (but the connector's credential, as every request does).
    client = await pooledClient(request.connector, () => currentCall.exit(() => openUpstream(target, { fetch: bearerFetch(target, forwardingFetch(env().connectorMaxResultBytes)) })));
  } catch (error) {
    return { ok: false, failure: upstreamError(error, target) };
  }
  // A failure seen by the fetch while the answer streams in (too large, cut off), or the connector's
  // timeout, ends the call at once (the SDK then cancels it upstream). The timeout is kept here rather
  // than left to the SDK, whose timeout error has a code an upstream may answer with too.
  //
  // The call's signal is a plain controller's, aborted by hand when the caller goes away, and never
  // AbortSignal.any([...]): Node keeps a composite signal that has an abort listener alive until it aborts
  // (so that the listener still fires), and the SDK never removes the listener it adds. Each call then kept
  // its whole request in memory, about 30 kB, until the process ran out of heap.
  const call = new AbortController();
  let failure: UpstreamError | null = null;
  const fail = (error: UpstreamError) => {
    failure ??= error;
    call.abort(error);
  };
  const callerGone = () => call.abort(request.signal.reason);
  if (request.signal.aborted) callerGone();
  else request.signal.addEventListener('abort', callerGone, { once: true });
  const context: CallContext = { headers: request.headers ? await request.headers() : {}, fail };
  const timer = setTimeout(() => fail(new UpstreamError(`the upstream did not answer within ${target.timeoutMs} ms`, 'timeout')), target.timeoutMs);
  try {
    const result = await currentCall.run(context, () =>
      client.request({ method: 'tools/call', params: { name: request.upstreamName, arguments: request.args } }, CallToolResultSchema, {
        signal: call.signal,
        // A backstop only: the timer above ends the call first.
        timeout: target.timeoutMs + SDK_TIMEOUT_MARGIN_MS,
      }),
    );
    return checkedResult(result);
  } catch (error) {
    if (request.signal.aborted) return { ok: false, failure: 'aborted' };
    return { ok: false, failure: failure ?? upstreamError(error, target) };
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', callerGone);
  }
}

/** The upstream's result as it is passed on, or why it cannot be. */
function checkedResult(result: Record<string, unknown>): CallResult {
  if (depthExceeds(result, MAX_RESULT_DEPTH)) {
    return { ok: false, failure: new UpstreamError(`the upstream's answer is nested deeper than ${MAX_RESULT_DEPTH} levels`, 'malformed') };
  }
  const structured = result.structuredContent;
  return {
    ok: true,
    result: {
      content: Array.isArray(result.content) ? result.content : [],
      ...(structured && typeof structured === 'object' && !Array.isArray(structured) ? { structuredContent: structured as Record<string, unknown> } : {}),
      isError: result.isError === true,
    },
  };
}

/** Whether the value nests deeper than `limit` arrays and objects; iterative, so any depth is safe. */
export function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The transport's fetch: the answer counted while it streams in (cappedFetch), the call's own headers added,
 * and a failure of the answer's stream reported to the call it belongs to.
 */
function forwardingFetch(limit: number): typeof fetch {
  const capped = cappedFetch(limit);
  return async (input, init) => {
    const call = currentCall.getStore();
    const response = await capped(input, call ? { ...init, headers: headerRecord(init?.headers, call.headers) } : init);
    // Only the answer to the call's own tools/call is watched: an answer Gatehouse posts back during the call
    // (-32601 to a sampling request) is the upstream's 202, whose body the SDK drops.
    // A JSON answer's failure fails the SDK's own read of it, and with it the call; only a stream of events,
    // whose read the SDK reports elsewhere, needs watching.
    // (The body is looked at last: a JSON answer read whole is handed over without a stream, upstream-http.ts.)
    if (!call || !isEventStream(response) || !response.body || !isToolsCall(init?.body)) return response;
    const reader = response.body.getReader();
    let cancelled = false;
    const reported = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (!cancelled) call.fail(error instanceof UpstreamError ? error : new UpstreamError(`the upstream's answer was cut off (${firstLine(error)})`, 'unreachable'));
          controller.error(error);
          return;
        }
        // The SDK may cancel the stream (it has what it needs) while a read is pending.
        if (cancelled) return;
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason);
      },
    });
    return new Response(reported, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
}

function isToolsCall(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as { method?: unknown };
    return message.method === 'tools/call';
  } catch {
    return false;
  }
}

function countFailure(connector: ConnectorEndpoint): void {
  const circuit = circuitOf(connector) ?? { url: connector.url, failures: 0, openUntil: 0 };
  circuit.failures++;
  if (circuit.failures >= CIRCUIT_FAILURES) circuit.openUntil = Date.now() + CIRCUIT_OPEN_MS;
  circuits().set(connector.id, circuit);
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error)
    .split('\n')[0]!
    .slice(0, 200);
}
