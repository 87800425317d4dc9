// Grants: one person's approval of one client in one organization, with the scopes they ticked
// (SPEC §1). The provider's Grant and Gatehouse's row are written and removed together.
import type Provider from 'oidc-provider';
import { recordAudit } from '@/lib/audit/events';
import { database } from '@/lib/db/client';
import { inTransaction, queries, type Tx } from '@/lib/db/transaction';
import type { McpScope } from './scopes';

export type Approval = {
  personId: string;
  orgId: string;
  clientId: string;
  scopes: McpScope[];
  /** The canonical resource (resource.ts): the provider keys grants by it, and tokens are matched to it. */
  resource: string;
  /** OIDC scopes the client asked for (openid, profile, email, offline_access): granted alongside. */
  oidcScopes: string[];
  ip: string | null;
};

/**
 * Records an approval: the provider's Grant, Gatehouse's grant row and the audit event in one
 * transaction. An earlier grant of the same person to the same client in the same org is revoked.
 */
export async function approveGrant(provider: Provider, approval: Approval): Promise<string> {
  return inTransaction(async (tx) => {
    // Two approvals of the same client by the same person in the same org (two tabs) take turns, so the
    // second replaces the first instead of both staying live. (The embedded database runs one
    // transaction at a time anyway.)
    if (database().kind === 'postgres') {
      const key = `${approval.personId}\n${approval.orgId}\n${approval.clientId}`;
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 11))`;
    }
    const previous = await tx.grant.findMany({
      where: { personId: approval.personId, orgId: approval.orgId, clientId: approval.clientId, revokedAt: null },
      select: { id: true },
    });
    for (const { id } of previous) {
      await revokeGrantIn(tx, { grantId: id, byPersonId: approval.personId, reason: 'replaced', ip: approval.ip });
    }

    const grant = new provider.Grant({ accountId: approval.personId, clientId: approval.clientId });
    if (approval.oidcScopes.length) grant.addOIDCScope(approval.oidcScopes.join(' '));
    grant.addResourceScope(approval.resource, approval.scopes.join(' '));
    const grantId = await grant.save(); // through the adapter, inside this transaction

    await tx.grant.create({
      data: {
        id: grantId,
        personId: approval.personId,
        orgId: approval.orgId,
        clientId: approval.clientId,
        scopes: approval.scopes,
      },
    });
    await recordAudit(
      {
        type: 'consent.granted',
        orgId: approval.orgId,
        actorPersonId: approval.personId,
        clientId: approval.clientId,
        grantId,
        ip: approval.ip,
        data: { scopes: approval.scopes, replaced: previous.map(({ id }) => id) },
      },
      tx,
    );
    return grantId;
  });
}

export type Revocation = {
  grantId: string;
  /** The person who revoked it; null when Gatehouse itself did. */
  byPersonId: string | null;
  reason:
    | 'person'
    | 'org_admin'
    | 'replaced'
    | 'refresh_reuse'
    | 'code_reuse'
    | 'member_removed'
    | 'client_deleted'
    | 'client_revoked_token'
    | 'client_blocked'
    | 'client_disabled';
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
export async function revokeGrantsWhere(
  scope: Partial<GrantScope>,
  revocation: Omit<Revocation, 'grantId'>,
): Promise<number> {
  return inTransaction(async (tx) => {
    const live = await tx.grant.findMany({ where: { ...scope, revokedAt: null }, select: { id: true } });
    for (const { id } of live) await revokeGrantIn(tx, { ...revocation, grantId: id });
    return live.length;
  });
}

async function revokeGrantIn(tx: Tx, revocation: Revocation): Promise<boolean> {
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

/** Whether a grant is live, read inside the caller's transaction with a share lock on its row. */
export async function lockLiveGrant(grantId: string): Promise<boolean> {
  const rows = await queries().$queryRaw<{ revoked_at: Date | null }[]>`
    SELECT revoked_at FROM grants WHERE id = ${grantId} FOR SHARE`;
  return rows.length === 1 && rows[0]!.revoked_at === null;
}

/**
 * Takes a grant's row lock for a revocation that the provider starts itself (/oauth/revoke deletes the
 * tokens before revokeGrant runs): a token request holding the grant (lockLiveGrant) finishes first, or
 * waits and then finds it revoked — instead of each waiting on the other's rows until one is aborted.
 */
export async function lockGrantForRevocation(grantId: string): Promise<void> {
  await queries().$queryRaw`SELECT id FROM grants WHERE id = ${grantId} FOR UPDATE`;
}
