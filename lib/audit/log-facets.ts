// The choices offered by the log filters' person and app menus: the org's members (deactivated ones too:
// their past events stay in the log) and the apps that ever had a grant or a decision in the org.
import { db } from '@/lib/db/client';

export type LogFacets = {
  people: { id: string; name: string; email: string }[];
  clients: { id: string; name: string }[];
};

export async function logFacets(orgId: string): Promise<LogFacets> {
  const [people, clients] = await Promise.all([
    db().person.findMany({
      where: { memberships: { some: { orgId } } },
      select: { id: true, name: true, email: true },
      orderBy: { name: 'asc' },
    }),
    db().oAuthClient.findMany({
      where: { OR: [{ grants: { some: { orgId } } }, { ownerOrgId: orgId }] },
      select: { clientId: true, name: true },
      orderBy: { name: 'asc' },
      take: 500,
    }),
  ]);
  return { people, clients: clients.map((client) => ({ id: client.clientId, name: client.name ?? client.clientId })) };
}
