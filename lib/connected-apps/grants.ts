// A person's own connected apps (SPEC §7): their live grants across every organization, and revoking one.
import { db } from '@/lib/db/client';
import { revokeGrant } from '@/lib/oauth/grants';
import { isMcpScope, MCP_SCOPES } from '@/lib/oauth/scopes';

export type ConnectedApp = {
  grantId: string;
  clientName: string;
  unverified: boolean;
  hostname: string | null;
  orgName: string;
  scopes: string[];
  approvedAt: Date;
  lastUsedAt: Date | null;
};

export async function connectedAppsOf(personId: string): Promise<ConnectedApp[]> {
  const grants = await db().grant.findMany({
    where: { personId, revokedAt: null },
    include: { client: true, org: true },
    orderBy: { createdAt: 'desc' },
  });
  return grants.map((grant) => ({
    grantId: grant.id,
    clientName: grant.client.name ?? grant.clientId,
    unverified: grant.client.registration !== 'admin',
    hostname: grant.client.hostname,
    orgName: grant.org.name,
    scopes: grant.scopes.filter(isMcpScope).map((scope) => MCP_SCOPES[scope]),
    approvedAt: grant.createdAt,
    lastUsedAt: grant.lastUsedAt,
  }));
}

export type RevokeOutcome = { ok: true } | { ok: false; error: string };

/** Revokes one of the person's own grants; anything else is refused as if it did not exist. */
export async function revokeOwnGrant(personId: string, grantId: string, ip: string | null): Promise<RevokeOutcome> {
  const grant = await db().grant.findUnique({ where: { id: grantId }, select: { personId: true, revokedAt: true } });
  if (!grant || grant.personId !== personId) return { ok: false, error: 'This app is not connected to your account.' };
  if (grant.revokedAt) return { ok: true };
  await revokeGrant({ grantId, byPersonId: personId, reason: 'person', ip });
  return { ok: true };
}
