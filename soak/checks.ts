// The soak run's final consistency check: the database must hold exactly what the traffic did.
// - no live access or refresh token for a revoked grant, and every grant the traffic revoked is revoked;
// - one call-log row per /mcp request of a live grant answered (the log is flushed every second, so it is awaited);
// - one audit event per change made: registrations, consents, code exchanges, refreshes, revocations
//   and the admin's tool switches;
// - memory flat: the server's resident memory in the run's last third no more than a bounded step above
//   its middle third (the first third is warm-up: caches, JIT, the pool filling).
import pg from 'pg';
import type { Tally } from './traffic';

/** Growth allowed from the middle third's median RSS to the last third's, as a fraction. */
export const MAX_RSS_GROWTH = 0.15;
const FLUSH_WAIT_MS = 15_000;

export type Check = { name: string; expected: string; found: string; ok: boolean };

export async function checkConsistency(databaseUrl: string, tally: Tally, since: Date): Promise<Check[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const checks: Check[] = [];
    const check = (name: string, expected: number | string, found: number | string) => checks.push({ name, expected: String(expected), found: String(found), ok: String(expected) === String(found) });

    const calls = await waitForCallLog(client, since, tally.mcpAnswered);
    check('call-log rows = /mcp requests answered', tally.mcpAnswered, calls);

    const events = await countEvents(client, since);
    check('client.registered = OAuth flows completed', tally.connected, events['client.registered'] ?? 0);
    check('consent.granted = OAuth flows completed', tally.connected, events['consent.granted'] ?? 0);
    check('token.issued = code exchanges', tally.connected, events['token.issued'] ?? 0);
    check('token.refreshed = refreshes answered 200', tally.refreshed, events['token.refreshed'] ?? 0);
    check('grant.revoked = revocations made', tally.revokedByClient + tally.revokedByPerson, events['grant.revoked'] ?? 0);
    check('tool.restricted + tool.unrestricted = admin changes made', tally.toolChanges, (events['tool.restricted'] ?? 0) + (events['tool.unrestricted'] ?? 0));

    const revoked = await client.query<{ count: string }>(`SELECT count(*) FROM grants WHERE client_id = ANY($1::text[]) AND revoked_at IS NOT NULL`, [tally.revokedClientIds]);
    check('grants revoked by the traffic that are revoked in the database', tally.revokedClientIds.length, Number(revoked.rows[0]!.count));
    const live = await client.query<{ count: string }>(
      `SELECT count(*) FROM oidc_models t JOIN grants g ON g.id = t.grant_id
        WHERE t.model IN ('AccessToken', 'RefreshToken') AND g.revoked_at IS NOT NULL
          AND t.consumed_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
    );
    check('live tokens of revoked grants', 0, Number(live.rows[0]!.count));
    check('unexpected answers during the run', 0, tally.unexpectedCount);

    const growth = rssGrowth(tally.rss);
    checks.push({
      name: 'memory flat (RSS median, middle third → last third)',
      expected: `≤ +${MAX_RSS_GROWTH * 100} %`,
      found: growth ? `${growth.middle} → ${growth.last} MB (${growth.fraction >= 0 ? '+' : ''}${(growth.fraction * 100).toFixed(1)} %)` : 'too few samples',
      ok: growth !== null && growth.fraction <= MAX_RSS_GROWTH,
    });
    return checks;
  } finally {
    await client.end();
  }
}

async function waitForCallLog(client: pg.Client, since: Date, expected: number): Promise<number> {
  const deadline = Date.now() + FLUSH_WAIT_MS;
  for (;;) {
    const result = await client.query<{ count: string }>('SELECT count(*) FROM mcp_calls WHERE at >= $1', [since]);
    const count = Number(result.rows[0]!.count);
    if (count >= expected || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function countEvents(client: pg.Client, since: Date): Promise<Record<string, number>> {
  const result = await client.query<{ type: string; count: string }>('SELECT type, count(*) FROM audit_events WHERE created_at >= $1 GROUP BY type', [since]);
  return Object.fromEntries(result.rows.map((row) => [row.type, Number(row.count)]));
}

export function rssGrowth(samples: { mb: number }[]): { middle: number; last: number; fraction: number } | null {
  if (samples.length < 6) return null;
  const third = Math.floor(samples.length / 3);
  const middle = median(samples.slice(third, 2 * third).map((sample) => sample.mb));
  const last = median(samples.slice(2 * third).map((sample) => sample.mb));
  return { middle: Math.round(middle), last: Math.round(last), fraction: (last - middle) / middle };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Looks up the grant behind a client (the soak makes one grant per client). */
export async function grantLookup(databaseUrl: string): Promise<{ grantIdOf(clientId: string): Promise<string>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    grantIdOf: async (clientId) => {
      const result = await client.query<{ id: string }>('SELECT id FROM grants WHERE client_id = $1 AND revoked_at IS NULL', [clientId]);
      if (!result.rows[0]) throw new Error(`soak: no live grant for client ${clientId}`);
      return result.rows[0].id;
    },
    close: () => client.end(),
  };
}
