// Logs store ids; people read names. One lookup per page or export batch, never one per row.
import { db } from '@/lib/db/client';

export type PersonName = { id: string; name: string; email: string };
export type ClientName = { id: string; name: string };

export type Names = {
  person(id: string | null): PersonName | null;
  client(id: string | null): ClientName | null;
};

export async function lookUpNames(personIds: (string | null)[], clientIds: (string | null)[]): Promise<Names> {
  const people = unique(personIds);
  const clients = unique(clientIds);
  const [personRows, clientRows] = await Promise.all([
    people.length ? db().person.findMany({ where: { id: { in: people } }, select: { id: true, name: true, email: true } }) : [],
    clients.length ? db().oAuthClient.findMany({ where: { clientId: { in: clients } }, select: { clientId: true, name: true } }) : [],
  ]);
  const personById = new Map(personRows.map((person) => [person.id, person]));
  // A deleted client keeps its id in the logs; its name is gone with it.
  const clientById = new Map(clientRows.map((client) => [client.clientId, { id: client.clientId, name: client.name ?? client.clientId }]));
  return {
    person: (id) => (id ? (personById.get(id) ?? { id, name: 'Unknown person', email: '' }) : null),
    client: (id) => (id ? (clientById.get(id) ?? { id, name: id }) : null),
  };
}

function unique(ids: (string | null)[]): string[] {
  return [...new Set(ids.filter((id): id is string => Boolean(id)))];
}
