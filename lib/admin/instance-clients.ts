// Every client of the installation, for instance admins (docs/protocol.md §7: they disable or delete
// clients installation-wide): find one among many self-registered ones, disable it (new authorizations refused,
// existing tokens fail on their next use, grants kept for when it is enabled again), or delete it.
import { type AppGroup, appSummaries, groupByApp } from '@/lib/apps/apps';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { Prisma } from '@/lib/generated/prisma/client';
import type { ClientRegistration } from '@/lib/generated/prisma/enums';
import { deleteClient, redirectUrisOf } from '@/lib/oauth/clients';
import type { InstanceAdmin } from './access';
import { notFound } from './errors';
import { type NumberedPage, pageAmong, searchAny } from './numbered-pages';

export const CLIENTS_PER_PAGE = 25;

export type InstanceClientRow = {
  clientId: string;
  /** The app the registration belongs to (lib/apps); null until start-up assigns one. */
  appId: string | null;
  name: string | null;
  registration: ClientRegistration;
  hostname: string | null;
  /** From the provider's stored metadata; empty for metadata-document clients (the document has them). */
  redirectUris: string[];
  firstSeenAt: Date;
  lastUsedAt: Date | null;
  liveGrants: number;
  /** Organizations where the client has live grants. */
  orgs: { slug: string; name: string; liveGrants: number }[];
  disabledAt: Date | null;
  disabledBy: string | null;
};

/** A page of registrations, also grouped under their apps (an app's count is over the whole installation). */
export type ClientPage = NumberedPage<InstanceClientRow> & { apps: (AppGroup<InstanceClientRow> & { blockedEverywhere: boolean })[] };

/** One page of clients, newest first, optionally only those whose name or client id contains `query`. */
export async function instanceClients(query: string, page: number): Promise<ClientPage> {
  const where: Prisma.OAuthClientWhereInput = searchAny(query, ['name', 'clientId']);
  const total = await db().oAuthClient.count({ where });
  const { page: current, pages, skip, take } = pageAmong(total, page, CLIENTS_PER_PAGE);
  const clients = await db().oAuthClient.findMany({
    where,
    orderBy: [{ firstSeenAt: 'desc' }, { clientId: 'asc' }],
    skip,
    take,
  });
  const ids = clients.map((client) => client.clientId);
  const [redirects, liveByOrg, lastUse, disablers] = await Promise.all([
    redirectUrisOf(ids),
    db().grant.groupBy({ by: ['clientId', 'orgId'], where: { clientId: { in: ids }, revokedAt: null }, _count: { _all: true } }),
    db().grant.groupBy({ by: ['clientId'], where: { clientId: { in: ids } }, _max: { lastUsedAt: true } }),
    db().person.findMany({
      where: { id: { in: clients.flatMap((client) => (client.disabledById ? [client.disabledById] : [])) } },
      select: { id: true, name: true },
    }),
  ]);
  const orgs = await db().organization.findMany({
    where: { id: { in: [...new Set(liveByOrg.map((group) => group.orgId))] } },
    select: { id: true, slug: true, name: true },
  });
  const orgById = new Map(orgs.map((org) => [org.id, org]));
  const lastUsed = new Map(lastUse.map((group) => [group.clientId, group._max.lastUsedAt]));
  const names = new Map(disablers.map((person) => [person.id, person.name]));
  const rows = clients.map((client): InstanceClientRow => {
    const usedIn = liveByOrg
      .filter((group) => group.clientId === client.clientId)
      .map((group) => ({ ...orgById.get(group.orgId)!, liveGrants: group._count._all }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const grantUse = lastUsed.get(client.clientId) ?? null;
    return {
      clientId: client.clientId,
      appId: client.appId,
      name: client.name,
      registration: client.registration,
      hostname: client.hostname,
      redirectUris: redirects.get(client.clientId) ?? [],
      firstSeenAt: client.firstSeenAt,
      lastUsedAt: latest(client.lastUsedAt, grantUse),
      liveGrants: usedIn.reduce((sum, org) => sum + org.liveGrants, 0),
      orgs: usedIn.map(({ slug, name, liveGrants }) => ({ slug, name, liveGrants })),
      disabledAt: client.disabledAt,
      disabledBy: client.disabledById ? (names.get(client.disabledById) ?? null) : null,
    };
  });
  const groups = groupByApp(rows, await appSummaries(rows.map((row) => row.appId)));
  const blocked = await db().app.findMany({ where: { id: { in: groups.flatMap((group) => (group.appId ? [group.appId] : [])) }, blockedAt: { not: null } }, select: { id: true } });
  const blockedIds = new Set(blocked.map((app) => app.id));
  const apps = groups.map((group) => ({ ...group, blockedEverywhere: group.appId !== null && blockedIds.has(group.appId) }));
  return { rows, total, page: current, pages, apps };
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a > b ? a : b;
}

const UNKNOWN = 'This client does not exist (it may have been deleted).';

/**
 * Disables a client everywhere: the provider no longer knows it (authorize, token and refresh answer
 * invalid_client) and /mcp refuses its tokens. Its grants stay, so enabling it again restores them.
 */
export function disableClient(admin: InstanceAdmin, clientId: string, ip: string): Promise<void> {
  return inTransaction(async (tx) => {
    const client = await tx.oAuthClient.findUnique({ where: { clientId }, select: { name: true } });
    if (!client) throw notFound(UNKNOWN);
    const changed = await tx.oAuthClient.updateMany({ where: { clientId, disabledAt: null }, data: { disabledAt: new Date(), disabledById: admin.personId } });
    if (changed.count === 0) return; // already disabled: nothing to record
    await recordAudit({ type: 'client.disabled', actorPersonId: admin.personId, clientId, ip, data: { name: client.name } }, tx);
  });
}

export function enableClient(admin: InstanceAdmin, clientId: string, ip: string): Promise<void> {
  return inTransaction(async (tx) => {
    const client = await tx.oAuthClient.findUnique({ where: { clientId }, select: { name: true } });
    if (!client) throw notFound(UNKNOWN);
    const changed = await tx.oAuthClient.updateMany({ where: { clientId, disabledAt: { not: null } }, data: { disabledAt: null, disabledById: null } });
    if (changed.count === 0) return;
    await recordAudit({ type: 'client.enabled', actorPersonId: admin.personId, clientId, ip, data: { name: client.name } }, tx);
  });
}

/** Deletes a client: every grant revoked (audited), its registration gone. Returns how many grants. */
export function deleteInstanceClient(admin: InstanceAdmin, clientId: string, ip: string): Promise<number> {
  return inTransaction(async (tx) => {
    if (!(await tx.oAuthClient.findUnique({ where: { clientId }, select: { clientId: true } }))) throw notFound(UNKNOWN);
    return deleteClient(clientId, { byPersonId: admin.personId, ip, by: 'instance_admin' });
  });
}
