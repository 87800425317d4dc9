// Live grants as every surface lists them (docs/protocol.md §7): one person's across their organizations (the
// Connected apps settings page), or an org's (the console's Connected apps page, list_connected_apps).
// One row shape and one query; a surface picks what it shows.
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { isMcpScope, type McpScope } from '@/lib/oauth/scopes';

export type GrantRow = {
  grantId: string;
  personId: string;
  personName: string;
  personEmail: string;
  orgId: string;
  orgName: string;
  clientId: string;
  /** The client's name, or its id when it gave none. */
  clientName: string;
  /** The name the client registered with; null when it gave none. */
  registeredName: string | null;
  /** Registered by itself (dynamic registration, a metadata document), not by an admin. */
  unverified: boolean;
  hostname: string | null;
  scopes: McpScope[];
  approvedAt: Date;
  lastUsedAt: Date | null;
};

export type GrantList = { rows: GrantRow[] /** More grants matched than `limit`. */; truncated: boolean };

export type OrgGrantFilter = { personId?: string; clientId?: string };

const include = {
  person: { select: { name: true, email: true } },
  org: { select: { name: true } },
  client: { select: { name: true, registration: true, hostname: true } },
} satisfies Prisma.GrantInclude;

async function liveGrants(where: Prisma.GrantWhereInput, limit?: number): Promise<GrantList> {
  const grants = await db().grant.findMany({
    where: { ...where, revokedAt: null },
    include,
    orderBy: { createdAt: 'desc' },
    ...(limit === undefined ? {} : { take: limit + 1 }),
  });
  const truncated = limit !== undefined && grants.length > limit;
  return {
    rows: (truncated ? grants.slice(0, limit) : grants).map((grant) => ({
      grantId: grant.id,
      personId: grant.personId,
      personName: grant.person.name,
      personEmail: grant.person.email,
      orgId: grant.orgId,
      orgName: grant.org.name,
      clientId: grant.clientId,
      clientName: grant.client.name ?? grant.clientId,
      registeredName: grant.client.name,
      unverified: grant.client.registration !== 'admin',
      hostname: grant.client.hostname,
      scopes: grant.scopes.filter(isMcpScope),
      approvedAt: grant.createdAt,
      lastUsedAt: grant.lastUsedAt,
    })),
    truncated,
  };
}

/** A person's live grants in every org, newest first. A person has few: no bound. */
export async function grantsOfPerson(personId: string): Promise<GrantRow[]> {
  return (await liveGrants({ personId })).rows;
}

/** An org's live grants, newest first, at most `limit` of them. */
export function grantsOfOrg(orgId: string, filter: OrgGrantFilter, limit: number): Promise<GrantList> {
  return liveGrants({ orgId, ...(filter.personId ? { personId: filter.personId } : {}), ...(filter.clientId ? { clientId: filter.clientId } : {}) }, limit);
}

/** The people and clients that have live grants in the org: the choices of the console's filters. */
export async function orgGrantFacets(orgId: string) {
  const [people, clients] = await Promise.all([
    db().person.findMany({ where: { grants: { some: { orgId, revokedAt: null } } }, select: { id: true, name: true, email: true }, orderBy: { name: 'asc' } }),
    db().oAuthClient.findMany({ where: { grants: { some: { orgId, revokedAt: null } } }, select: { clientId: true, name: true }, orderBy: { name: 'asc' } }),
  ]);
  return { people, clients: clients.map((client) => ({ clientId: client.clientId, name: client.name ?? client.clientId })) };
}
