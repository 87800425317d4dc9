// One scenario, measured twice: its maximum throughput at 32 connections, then its latency at a fixed
// offered rate. Answers other than the scenario's intended status count as errors.
import autocannon, { type Result } from 'autocannon';
import type { Scenario } from './scenarios';

export const CONNECTIONS = 32;

export type Measurement = {
  key: string;
  label: string;
  maxRps: number;
  fixedRate: number;
  achievedRps: number;
  latencyMs: { p50: number; p90: number; p99: number };
  errors: number;
  requests: number;
  /** Answers by HTTP status over both runs, to tell unintended answers apart. */
  statuses: Record<string, number>;
};

async function run(url: string, scenario: Scenario, seconds: number, overallRate?: number): Promise<Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, timeout: 10, requests: scenario.requests(), ...(overallRate ? { overallRate } : {}) });
}

function unintended(result: Result, expectedStatus: number): number {
  const byStatus = result.statusCodeStats ?? {};
  const answered = Object.entries(byStatus).reduce((sum, [status, { count }]) => sum + (Number(status) === expectedStatus ? 0 : count), 0);
  return answered + result.errors + result.timeouts;
}

function statuses(result: Result): Record<string, number> {
  const counts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]));
  if (result.errors) counts.error = result.errors;
  if (result.timeouts) counts.timeout = result.timeouts;
  return counts;
}

export async function maxThroughput(url: string, scenario: Scenario, seconds: number) {
  const result = await run(url, scenario, seconds);
  return { rps: result.requests.average, errors: unintended(result, scenario.expectedStatus), requests: result.requests.total, statuses: statuses(result) };
}

export async function latencyAt(url: string, scenario: Scenario, seconds: number, rate: number) {
  const result = await run(url, scenario, seconds, rate);
  return {
    achievedRps: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
    errors: unintended(result, scenario.expectedStatus),
    requests: result.requests.total,
    statuses: statuses(result),
  };
}
