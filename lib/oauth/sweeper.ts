// Housekeeping, so that storage stays proportional to live grants (SPEC §3, issue "Housekeeping"):
// - provider rows past their expiry (tokens, codes, sessions, interactions, replay records);
// - /mcp call-log rows older than CALL_LOG_RETENTION_DAYS;
// - dynamically registered clients that got no grant within 24 h of registering (abandoned or abusive
//   registrations), with their registration access tokens; the client then gets invalid_client and
//   registers again.
// Every instance runs it on a timer. The deletions are idempotent, and a client's deletion is audited by
// the one instance whose DELETE actually removed it, so several instances never double-count.
import { recordAudit } from '@/lib/audit/events';
import { inTransaction } from '@/lib/db/transaction';
import { db } from '@/lib/db/client';
import { pruneCallLog } from '@/lib/audit/call-log';
import { env } from '@/lib/env';
import { deleteProviderClient } from './clients';

export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

export type SweepResult = { expiredRows: number; deletedClients: string[]; prunedCalls: number };

export async function sweep(now = new Date()): Promise<SweepResult> {
  const expired = await db().oidcModel.deleteMany({ where: { expiresAt: { lt: now } } });
  // Sign-in sessions and set-password links past their expiry are only history.
  await db().signInSession.deleteMany({ where: { expiresAt: { lt: now } } });
  await db().passwordLink.deleteMany({ where: { expiresAt: { lt: now } } });
  const candidates = await db().oAuthClient.findMany({
    // A client an org admin approved or blocked is kept: the decision must outlive the 24 hours.
    where: { registration: 'dynamic', firstSeenAt: { lt: new Date(now.getTime() - UNUSED_CLIENT_TTL_MS) }, grants: { none: {} }, orgDecisions: { none: {} } },
    select: { clientId: true },
    take: 500,
  });
  const deletedClients: string[] = [];
  for (const { clientId } of candidates) {
    const deleted = await inTransaction(async (tx) => {
      // Re-checked under the delete itself: a grant made since the query above keeps the client.
      const removed = await tx.oAuthClient.deleteMany({ where: { clientId, grants: { none: {} }, orgDecisions: { none: {} } } });
      if (removed.count === 0) return false;
      await deleteProviderClient(tx, clientId);
      await recordAudit({ type: 'client.deleted', clientId, data: { by: 'sweeper', reason: 'no grant within 24 h' } }, tx);
      return true;
    });
    if (deleted) deletedClients.push(clientId);
  }
  const prunedCalls = await pruneCallLog(env().callLogRetentionDays);
  return { expiredRows: expired.count, deletedClients, prunedCalls };
}

const state = globalThis as unknown as { gatehouseSweeper?: NodeJS.Timeout };

/** Sweeps soon after start, then every `intervalMs` (default 10 min). */
export function startSweeper(intervalMs: number): void {
  if (state.gatehouseSweeper) return;
  const run = () =>
    sweep().then(
      (result) => {
        if (result.deletedClients.length) console.log(`gatehouse: removed ${result.deletedClients.length} unused client(s)`);
      },
      (error) => console.error('gatehouse: sweep failed', (error as Error).message),
    );
  setTimeout(run, Math.min(5_000, intervalMs)).unref();
  state.gatehouseSweeper = setInterval(run, intervalMs);
  state.gatehouseSweeper.unref();
}
