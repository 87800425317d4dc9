// A throughput ratio measured in alternating rounds. The table's maxima are one slice each, seconds or
// minutes apart; on a shared machine whose speed drifts (another tenant, the host's memory scanning),
// that drift lands on one side of the ratio only: in one run of this benchmark (the server pinned to a
// core of its own) G/B read 0.46 while J/I, the same pair under another revision measured minutes
// later, read 0.73. Short slices of the two scenarios back to back, the order alternating round by
// round, see nearly the same machine; the median of their ratios is what the connector targets are read
// from (report.ts), beside the table's own ratio.
import { maxThroughput } from './measure';
import type { Scenario } from './scenarios';

/** The call scenario's maximum over the base's, round by round; unintended answers in those rounds, counted. */
export type PairedRatios = {
  against: string;
  seconds: number;
  ratios: number[];
  errors: number;
  /** Each round's maxima (req/s), base and call: a ratio far from the others shows which side moved. */
  rounds?: { base: number; call: number }[];
};

export async function pairedRatios(
  url: (scenario: Scenario) => string,
  base: Scenario,
  call: Scenario,
  rounds: number,
  seconds: number,
  /** Run before each round (placement.ts pins the database backends the server opened since). */
  beforeRound: () => Promise<void> = async () => {},
): Promise<PairedRatios> {
  const ratios: number[] = [];
  const measured: NonNullable<PairedRatios['rounds']> = [];
  let errors = 0;
  for (let round = 0; round < rounds; round++) {
    await beforeRound();
    const order = round % 2 === 0 ? [base, call] : [call, base];
    const rps = new Map<string, number>();
    for (const scenario of order) {
      const measured = await maxThroughput(url(scenario), scenario, seconds);
      rps.set(scenario.key, measured.rps);
      errors += measured.errors;
    }
    const [baseRps, callRps] = [rps.get(base.key)!, rps.get(call.key)!];
    measured.push({ base: Math.round(baseRps), call: Math.round(callRps) });
    if (baseRps > 0) ratios.push(callRps / baseRps);
  }
  return { against: base.key, seconds, ratios, errors, rounds: measured };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
