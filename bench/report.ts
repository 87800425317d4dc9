// The benchmark's results as a Markdown table (for the README) and JSON (for comparisons over time).
import { cpus, totalmem } from 'node:os';
import type { Measurement } from './measure';

export type DatabaseRun = { database: string; measurements: Measurement[]; peakRssMb: number; connections: number; seedSeconds: number };

export type Report = { at: string; machine: string; node: string; secondsPerRun: number; runs: DatabaseRun[] };

export function machine(): string {
  const cores = cpus();
  return `${cores.length} × ${cores[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform} ${process.arch}`;
}

const round = (value: number, digits = 0) => Number(value.toFixed(digits));

export function markdown(report: Report): string {
  const lines = [
    `Measured ${report.at} on ${report.machine}, Node ${report.node}; ${report.secondsPerRun} s per run, 32 connections; latency at a fixed offered rate of half of B's maximum.`,
    '',
  ];
  for (const run of report.runs) {
    const a = run.measurements.find((m) => m.key === 'A');
    const b = run.measurements.find((m) => m.key === 'B');
    lines.push(
      `**${run.database}** — ${run.connections} grants; server peak RSS ${round(run.peakRssMb)} MB; B/A = ${a && b ? round(b.maxRps / a.maxRps, 2) : '—'}`,
      '',
      '| | Scenario | Max req/s | Offered req/s | p50 ms | p90 ms | p99 ms | Errors |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...run.measurements.map(
        (m) => `| ${m.key} | ${m.label} | ${round(m.maxRps)} | ${round(m.fixedRate)} | ${m.latencyMs.p50} | ${m.latencyMs.p90} | ${m.latencyMs.p99} | ${m.errors} / ${m.requests} |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}
