// Housekeeping, so that storage stays proportional to live grants (docs/protocol.md §3, issue "Housekeeping"):
// - provider rows past their expiry (tokens, codes, sessions, interactions, replay records);
// - /mcp call-log rows older than CALL_LOG_RETENTION_DAYS;
// - dynamically registered clients that got no grant within 24 h of registering (abandoned or abusive
//   registrations), with their registration access tokens; the client then gets invalid_client and
//   registers again;
// - apps no registration points to any more (lib/apps/apps.ts pruneEmptyApps);
// - pending access requests past their 30 days, marked expired (lib/apps/requests.ts expireRequests).
// Every instance has the timer, but only one sweeps: the one holding the sweeper's advisory lock on a
// shared PostgreSQL (see leader-lock.ts), so N instances sweep once per period, not N times. Should two
// ever overlap (a holder's connection lost mid-sweep), the deletions are idempotent and a client's deletion
// is audited by the one instance whose DELETE actually removed it. Each sweep is logged with its counts.
import { pruneEmptyApps, recountApps } from '@/lib/apps/apps';
import { expireRequests } from '@/lib/apps/requests';
import { recordAudit } from '@/lib/audit/events';
import { inTransaction } from '@/lib/db/transaction';
import { db } from '@/lib/db/client';
import { pruneCallLog } from '@/lib/audit/call-log';
import { env } from '@/lib/env';
import { startPeriodicJob } from '@/lib/server/periodic-job';
import { deleteProviderClient } from './clients';

export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

/** `pg_try_advisory_lock` key for "this instance is the sweeper" (any 64-bit number unique to Gatehouse). */
export const SWEEPER_LOCK_KEY = 7_146_237_883_512_902;

export type SweepResult = { expiredRows: number; deletedClients: string[]; prunedCalls: number; prunedApps: number; expiredRequests: number };

export async function sweep(now = new Date()): Promise<SweepResult> {
  const expired = [
    await db().oidcModel.deleteMany({ where: { expiresAt: { lt: now } } }),
    // Sign-in sessions and set-password links past their expiry are only history.
    await db().signInSession.deleteMany({ where: { expiresAt: { lt: now } } }),
    await db().passwordLink.deleteMany({ where: { expiresAt: { lt: now } } }),
  ];
  const candidates = await db().oAuthClient.findMany({
    // Decisions are on apps, which outlive their registrations (lib/apps/apps.ts pruneEmptyApps); a client that
    // still carries a decision made on it before apps is kept until start-up has moved it onto its app.
    where: { registration: 'dynamic', firstSeenAt: { lt: new Date(now.getTime() - UNUSED_CLIENT_TTL_MS) }, grants: { none: {} }, orgDecisions: { none: {} } },
    select: { clientId: true, appId: true },
    take: 500,
  });
  const deletedClients: string[] = [];
  for (const { clientId, appId } of candidates) {
    const deleted = await inTransaction(async (tx) => {
      // Re-checked under the delete itself: a grant made since the query above keeps the client.
      const removed = await tx.oAuthClient.deleteMany({ where: { clientId, grants: { none: {} }, orgDecisions: { none: {} } } });
      if (removed.count === 0) return false;
      await deleteProviderClient(tx, clientId);
      await recountApps(tx, [appId]);
      await recordAudit({ type: 'client.deleted', clientId, data: { by: 'sweeper', reason: 'no grant within 24 h' } }, tx);
      return true;
    });
    if (deleted) deletedClients.push(clientId);
  }
  const expiredRequests = await expireRequests(now);
  const prunedApps = await pruneEmptyApps(now);
  const prunedCalls = await pruneCallLog(env().callLogRetentionDays);
  return { expiredRows: expired.reduce((sum, { count }) => sum + count, 0), deletedClients, prunedCalls, prunedApps, expiredRequests };
}

/**
 * Sweeps soon after start, then every `intervalMs` (default 10 min) — on PostgreSQL only while this
 * instance holds the sweeper lock (lib/server/periodic-job.ts). The embedded database has one process by
 * construction: it always sweeps.
 */
export function startSweeper(intervalMs: number): void {
  startPeriodicJob({
    name: 'sweeper',
    lockKey: SWEEPER_LOCK_KEY,
    intervalMs,
    describe: 'the housekeeping sweeps',
    run: async () => {
      const result = await sweep();
      return `swept ${result.expiredRows} expired record(s), ${result.deletedClients.length} unused client(s), ${result.prunedApps} empty app(s), ${result.prunedCalls} call log row(s), ${result.expiredRequests} access request(s) expired`;
    },
  });
}
