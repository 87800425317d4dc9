// Grant row locks, taken inside the caller's transaction, that order a token request and a revocation of
// the same grant: the one that comes second sees what the first did.
import { db } from '@/lib/db/client';

/** Whether a grant is live, read inside the caller's transaction with a share lock on its row. */
export async function lockLiveGrant(grantId: string): Promise<boolean> {
  const rows = await db().$queryRaw<{ revoked_at: Date | null }[]>`
    SELECT revoked_at FROM grants WHERE id = ${grantId} FOR SHARE`;
  return rows.length === 1 && rows[0]!.revoked_at === null;
}

/**
 * Takes a grant's row lock for a revocation that the provider starts itself (/oauth/revoke deletes the
 * tokens before revokeGrant runs): a token request holding the grant (lockLiveGrant) finishes first, or
 * waits and then finds it revoked — instead of each waiting on the other's rows until one is aborted.
 */
export async function lockGrantForRevocation(grantId: string): Promise<void> {
  await db().$queryRaw`SELECT id FROM grants WHERE id = ${grantId} FOR UPDATE`;
}
