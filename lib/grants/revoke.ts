// Revoking grants (docs/protocol.md §7): every token and code tied to a grant, the provider's Grant and Gatehouse's
// row, with the audit event, in one transaction. `revokeConnection` is what the surfaces call, with the
// one rule of who may (rules.ts); the others are for Gatehouse's own revocations (a client deleted or
// blocked, a member removed, a token reused).
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { mayRevoke, mayRevokeAllInOrg, revokeReason, type GrantActor } from './rules';

export type Revocation = {
  grantId: string;
  /** The person who revoked it; null when Gatehouse itself did. */
  byPersonId: string | null;
  reason: 'person' | 'org_admin' | 'replaced' | 'refresh_reuse' | 'code_reuse' | 'member_removed' | 'client_deleted' | 'client_revoked_token' | 'client_blocked' | 'client_disabled';
  ip?: string | null;
};

/**
 * Revokes a grant: every token and code tied to it, the provider's Grant and Gatehouse's row, with the
 * audit event, in one transaction. Returns false when it was already revoked (or never existed).
 */
export function revokeGrant(revocation: Revocation): Promise<boolean> {
  // Joins the caller's transaction when there is one, so an admin change and its revocations commit together.
  return inTransaction((tx) => revokeGrantIn(tx, revocation));
}

/** Which grants to revoke together: all of a client's, or only those in one org. */
export type GrantScope = { clientId: string; orgId?: string; personId?: string };

/**
 * Revokes every live grant matching `scope` (a client deleted, blocked for an org, a member removed),
 * each with its audit event. Joins the caller's transaction when there is one. Returns how many.
 */
export async function revokeGrantsWhere(scope: Partial<GrantScope>, revocation: Omit<Revocation, 'grantId'>): Promise<number> {
  return inTransaction(async (tx) => {
    const live = await tx.grant.findMany({ where: { ...scope, revokedAt: null }, select: { id: true } });
    for (const { id } of live) await revokeGrantIn(tx, { ...revocation, grantId: id });
    return live.length;
  });
}

/** The revocation inside a transaction the caller holds (approve.ts replaces an earlier grant with it). */
export async function revokeGrantIn(tx: Tx, revocation: Revocation): Promise<boolean> {
  // Taking the row lock first serializes with a token request for this grant (see adapter.ts): either it
  // finished before and its tokens are deleted below, or it waits and then finds the grant revoked.
  const updated = await tx.grant.updateMany({
    where: { id: revocation.grantId, revokedAt: null },
    data: { revokedAt: new Date(), revokedById: revocation.byPersonId, revokeReason: revocation.reason },
  });
  await tx.oidcModel.deleteMany({ where: { grantId: revocation.grantId } });
  await tx.oidcModel.deleteMany({ where: { model: 'Grant', id: revocation.grantId } });
  if (updated.count === 0) return false;
  const grant = await tx.grant.findUniqueOrThrow({ where: { id: revocation.grantId } });
  await recordAudit(
    {
      type: 'grant.revoked',
      orgId: grant.orgId,
      actorPersonId: revocation.byPersonId,
      clientId: grant.clientId,
      grantId: grant.id,
      ip: revocation.ip ?? null,
      data: { reason: revocation.reason },
    },
    tx,
  );
  return true;
}

/** What a surface's revocation came to; each surface words it for its own wire. */
export type RevokeOutcome =
  | { kind: 'revoked' | 'already_revoked'; grant: { id: string; clientId: string; clientName: string } }
  /** No such grant, or one the actor may not revoke: the same answer. */
  | { kind: 'unknown' };

/** Revokes one grant for a person or an org's member, if rules.ts lets them. */
export async function revokeConnection(actor: GrantActor, grantId: string, ip: string | null): Promise<RevokeOutcome> {
  const grant = await db().grant.findUnique({
    where: { id: grantId },
    select: { id: true, personId: true, orgId: true, clientId: true, client: { select: { name: true } } },
  });
  if (!grant || !mayRevoke(actor, grant)) return { kind: 'unknown' };
  const revoked = await revokeGrant({ grantId: grant.id, byPersonId: actor.personId, reason: revokeReason(actor, grant), ip });
  return {
    kind: revoked ? 'revoked' : 'already_revoked',
    grant: { id: grant.id, clientId: grant.clientId, clientName: grant.client.name ?? grant.clientId },
  };
}

/** Revokes every live grant of one client in the actor's org; returns how many (none for whoever may not). */
export async function revokeClientInOrg(actor: GrantActor, clientId: string, ip: string | null): Promise<number> {
  if (!mayRevokeAllInOrg(actor)) return 0;
  return revokeGrantsWhere({ clientId, orgId: actor.orgId }, { byPersonId: actor.personId, reason: 'org_admin', ip });
}
