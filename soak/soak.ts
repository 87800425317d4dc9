// One soak run: the traffic for a set time, then the consistency check against the database.
import { checkConsistency, grantLookup, type Check } from './checks';
import { runTraffic, type Tally, type TrafficOptions } from './traffic';

export type SoakResult = { seconds: number; startedAt: Date; tally: Tally; checks: Check[]; ok: boolean };

/** The server's settings for a soak: the limiters run, with budgets that measure the traffic, not refusals. */
// (A revoked connection's next call is refused without a valid token: those spend the address's budget.)
export const SOAK_SERVER_ENV = { MCP_RATE_LIMIT_PER_MINUTE: '1000000', MCP_UNAUTHENTICATED_RATE_LIMIT: '1000000', REGISTRATION_RATE_LIMIT: '100000' };

export async function soak(options: Omit<TrafficOptions, 'grantIdOf'> & { databaseUrl: string }): Promise<SoakResult> {
  const grants = await grantLookup(options.databaseUrl);
  try {
    const since = new Date();
    const tally = await runTraffic({ ...options, grantIdOf: grants.grantIdOf });
    const checks = await checkConsistency(options.databaseUrl, tally, since);
    return { seconds: options.seconds, startedAt: since, tally, checks, ok: checks.every((check) => check.ok) };
  } finally {
    await grants.close();
  }
}

export function soakReport(result: SoakResult): string {
  const { tally } = result;
  const lines = [
    `Soak: ${result.seconds} s — ${tally.connected} OAuth flows, ${tally.mcpAnswered} /mcp calls, ${tally.refreshed} refreshes, ` +
      `${tally.revokedByClient + tally.revokedByPerson} revocations (${tally.revokedByClient} by the client, ${tally.revokedByPerson} by the person), ${tally.toolChanges} admin changes`,
    `RSS (MB, every 5 s): ${tally.rss.map((sample) => Math.round(sample.mb)).join(' ')}`,
    '',
    '| Check | Expected | Found | |',
    '|---|---:|---:|---|',
    ...result.checks.map((check) => `| ${check.name} | ${check.expected} | ${check.found} | ${check.ok ? 'ok' : '**FAILED**'} |`),
  ];
  if (tally.unexpected.length) lines.push('', 'Unexpected answers (first 50):', ...tally.unexpected.map((line) => `- ${line}`));
  lines.push('', result.ok ? 'Soak: clean.' : 'Soak: FAILED.');
  return lines.join('\n');
}
