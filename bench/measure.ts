// One scenario, measured twice: its maximum throughput at 32 connections (autocannon, closed loop),
// then its latency at a fixed offered rate (an open-loop pacer: one request every 1/rate s, evenly).
// Answers other than the scenario's intended status count as errors, and so do answers with that status
// that fail the scenario's check of the body (a connector tool's failure in band is a 200 too).
//
// Why not autocannon's own rate option for the second: it lets each connection send its share of a
// second at the start of that second, so a "fixed rate" arrives as one burst per second and measures
// queueing behind the burst (about 35 ms median for /healthz at 72 req/s, against 1 ms when paced).
import autocannon, { type Request, type Result } from 'autocannon';
import { Agent, request as httpRequest } from 'node:http';
import type { PairedRatios } from './paired';
import type { BenchRequest, Scenario } from './scenarios';

export const CONNECTIONS = 32;

export type Throughput = { rps: number; errors: number; requests: number; statuses: Record<string, number> };
export type Latency = {
  achievedRps: number;
  latencyMs: { p50: number; p90: number; p99: number };
  errors: number;
  requests: number;
  statuses: Record<string, number>;
  /** Due but never sent: the scenario had nothing to send (E: every refresh chain already in flight). */
  notSent: number;
};

/** One scenario's row: its maximum, then its fixed-rate run; errors, requests and statuses over both runs. */
export type Measurement = Latency & {
  key: string;
  label: string;
  maxRps: number;
  fixedRate: number;
  /**
   * CPU the server (all its threads) and the bench upstream used per request during the maximum run, in ms;
   * and the server's event loop thread: on a CPU, and runnable but waiting for one.
   */
  cpuMsPerRequest?: { server: number; upstream: number | null; eventLoop?: { running: number; waiting: number } };
  /** Its maximum against another scenario's in alternating rounds (paired.ts): G against B, J against I. */
  paired?: PairedRatios;
  /** The same rounds with the upstreams on a CPU of their own, the rest on the others (placement.ts). */
  pairedApart?: PairedRatios & { cpus: { upstream: string; rest: string } };
};

/** The status an answer is counted under: its own, or "<status> wrong answer" when its body fails the check. */
function countedStatus(scenario: Scenario, status: number, body: string): string {
  return status === scenario.expectedStatus && scenario.answers && !scenario.answers(body) ? `${status} wrong answer` : String(status);
}

function autocannonRequest(scenario: Scenario, wrong: { count: number }): Request {
  const { request } = scenario;
  const check = (status: number, body: string) => {
    if (countedStatus(scenario, status, body) !== String(status)) wrong.count++;
  };
  if (typeof request !== 'function') return scenario.answers ? { ...request, onResponse: (status, body) => check(status, body) } : request;
  return {
    setupRequest: (base, context) => {
      // Closed loop: at most 32 in flight, and every scenario has more chains than that.
      const next = request();
      if (!next) throw new Error(`bench: scenario ${scenario.key} has nothing to send; raise BENCH_GRANTS`);
      context.answered = next.answered;
      return { ...base, method: next.method, path: next.path, headers: next.headers, body: next.body };
    },
    onResponse: (status, body, context) => {
      check(status, body);
      (context.answered as BenchRequest['answered'])?.(status, body);
    },
  };
}

export async function maxThroughput(url: string, scenario: Scenario, seconds: number): Promise<Throughput> {
  const wrong = { count: 0 };
  const result: Result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, timeout: 10, requests: [autocannonRequest(scenario, wrong)] });
  const statuses: Record<string, number> = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]));
  if (wrong.count) {
    statuses[scenario.expectedStatus] = (statuses[scenario.expectedStatus] ?? 0) - wrong.count;
    statuses[`${scenario.expectedStatus} wrong answer`] = wrong.count;
  }
  if (result.errors) statuses.error = result.errors;
  if (result.timeouts) statuses.timeout = result.timeouts;
  return { rps: result.requests.average, errors: unintended(statuses, scenario.expectedStatus), requests: result.requests.total, statuses };
}

/**
 * Sends `rate` requests per second for `seconds`, each at its scheduled time whether or not earlier ones
 * were answered (up to 32 sockets, as many as the throughput run). A request's latency counts from when
 * it was due (or was sent, if earlier), not from when a socket was free, so a server that falls behind shows it.
 */
export async function latencyAt(url: string, scenario: Scenario, seconds: number, rate: number): Promise<Latency> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL(url);
  const due = Math.max(1, Math.round(rate * seconds));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let notSent = 0;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < due; index++) {
    const dueAt = start + (index * 1000) / rate;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const next = typeof scenario.request === 'function' ? scenario.request() : scenario.request;
    if (!next) {
      notSent++;
      continue;
    }
    // A timer may wake up to a millisecond early (its clock counts whole milliseconds): a request sent
    // before it was due counts from when it was sent, never from a moment ahead of it.
    const countedFrom = Math.min(dueAt, performance.now());
    inFlight.push(
      send(agent, target, next).then(({ status, body }) => {
        latencies.push(performance.now() - countedFrom);
        const counted = typeof status === 'number' ? countedStatus(scenario, status, body) : status;
        statuses[counted] = (statuses[counted] ?? 0) + 1;
        if (typeof status === 'number') next.answered?.(status, body);
      }),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))]! * 10) / 10 : 0);
  const sent = latencies.length;
  return { achievedRps: sent / elapsed, latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99) }, errors: unintended(statuses, scenario.expectedStatus), requests: sent, statuses, notSent };
}

function send(agent: Agent, target: URL, next: BenchRequest): Promise<{ status: number | string; body: string }> {
  return new Promise((resolve) => {
    const outgoing = httpRequest({ agent, hostname: target.hostname, port: target.port, method: next.method, path: next.path, headers: next.headers, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', () => resolve({ status: 'error', body: '' }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', (error) => resolve({ status: error.message === 'timeout' ? 'timeout' : 'error', body: '' }));
    outgoing.end(next.body);
  });
}

function unintended(statuses: Record<string, number>, expectedStatus: number): number {
  return Object.entries(statuses).reduce((sum, [status, count]) => sum + (status === String(expectedStatus) ? 0 : count), 0);
}
