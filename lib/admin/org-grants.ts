// Every grant in an org, for its admins (SPEC §7): filter by person and client, revoke one or all of a client's.
import { db } from '@/lib/db/client';
import { revokeGrant, revokeGrantsWhere } from '@/lib/oauth/grants';
import { isMcpScope } from '@/lib/oauth/scopes';
import type { OrgAdmin } from './access';
import { notFound } from './errors';

export type OrgGrantRow = {
  grantId: string;
  personId: string;
  personName: string;
  personEmail: string;
  clientId: string;
  clientName: string;
  unverified: boolean;
  scopes: string[];
  approvedAt: Date;
  lastUsedAt: Date | null;
};

export type OrgGrantFilter = { personId?: string; clientId?: string };

export async function orgGrants(orgId: string, filter: OrgGrantFilter): Promise<OrgGrantRow[]> {
  const grants = await db().grant.findMany({
    where: { orgId, revokedAt: null, ...(filter.personId ? { personId: filter.personId } : {}), ...(filter.clientId ? { clientId: filter.clientId } : {}) },
    include: { person: { select: { name: true, email: true } }, client: { select: { name: true, registration: true } } },
    orderBy: { createdAt: 'desc' },
    take: 500,
  });
  return grants.map((grant) => ({
    grantId: grant.id,
    personId: grant.personId,
    personName: grant.person.name,
    personEmail: grant.person.email,
    clientId: grant.clientId,
    clientName: grant.client.name ?? grant.clientId,
    unverified: grant.client.registration !== 'admin',
    scopes: grant.scopes.filter(isMcpScope),
    approvedAt: grant.createdAt,
    lastUsedAt: grant.lastUsedAt,
  }));
}

/** The people and clients that have live grants in the org: the choices of the filters. */
export async function orgGrantFacets(orgId: string) {
  const [people, clients] = await Promise.all([
    db().person.findMany({ where: { grants: { some: { orgId, revokedAt: null } } }, select: { id: true, name: true, email: true }, orderBy: { name: 'asc' } }),
    db().oAuthClient.findMany({ where: { grants: { some: { orgId, revokedAt: null } } }, select: { clientId: true, name: true }, orderBy: { name: 'asc' } }),
  ]);
  return { people, clients: clients.map((client) => ({ clientId: client.clientId, name: client.name ?? client.clientId })) };
}

/** Revokes one grant of the org. A grant of another org is answered as unknown. */
export async function revokeOrgGrant(admin: OrgAdmin, grantId: string, ip: string): Promise<void> {
  const grant = await db().grant.findUnique({ where: { id: grantId }, select: { orgId: true } });
  if (!grant || grant.orgId !== admin.org.id) throw notFound('This connection does not exist in this organization.');
  await revokeGrant({ grantId, byPersonId: admin.personId, reason: 'org_admin', ip });
}

/** Revokes every live grant of one client in the org; returns how many. */
export function revokeClientInOrg(admin: OrgAdmin, clientId: string, ip: string): Promise<number> {
  return revokeGrantsWhere({ clientId, orgId: admin.org.id }, { byPersonId: admin.personId, reason: 'org_admin', ip });
}
