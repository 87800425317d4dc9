// Approving a grant at consent: one person's approval of one client in one organization, with the scopes
// they ticked (docs/protocol.md §1). The provider's Grant and Gatehouse's row are written together.
import type Provider from 'oidc-provider';
import { recordAudit } from '@/lib/audit/events';
import { database } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { McpScope } from '@/lib/oauth/scopes';
import { revokeGrantIn } from './revoke';

export type Approval = {
  personId: string;
  orgId: string;
  clientId: string;
  scopes: McpScope[];
  /** The canonical resource (lib/oauth/resource.ts): the provider keys grants by it, and tokens are matched to it. */
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
