// Reading the org's audit log (docs/protocol.md §7): a page of events for the console and the read_audit_log tool,
// one event, the latest few, the types that occur. Every query is scoped to the org: an event of another
// org is never listed or shown.
import { lookUpNames, type ClientName, type PersonName } from './log-names';
import { pageByKeyset, parseRowId, type Cursor, type Page } from './log-filter';
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { auditWhere, type AuditQuery } from './filter';

/** An event as stored: ids, no names (what the read_audit_log tool returns). */
export type AuditEventRecord = Prisma.AuditEventGetPayload<object>;

/** An event as the console shows it: with the names of its person and client. */
export type AuditRow = {
  id: bigint;
  at: Date;
  type: string;
  actor: PersonName | null;
  client: ClientName | null;
  grantId: string | null;
  ip: string | null;
  data: unknown;
};

export async function withNames(events: AuditEventRecord[]): Promise<AuditRow[]> {
  const names = await lookUpNames(
    events.map((event) => event.actorPersonId),
    events.map((event) => event.clientId),
  );
  return events.map((event) => ({
    id: event.id,
    at: event.createdAt,
    type: event.type,
    actor: names.person(event.actorPersonId),
    client: names.client(event.clientId),
    grantId: event.grantId,
    ip: event.ip,
    data: event.data,
  }));
}

/** One page of the org's events matching the query, newest first (keyset paging, log-filter.ts). */
export function auditEventsPage(orgId: string, query: AuditQuery, cursor: Cursor, size?: number): Promise<Page<AuditEventRecord>> {
  return pageByKeyset(cursor, (ids, order, take) => db().auditEvent.findMany({ where: auditWhere(orgId, query, ids), orderBy: { id: order }, take }), size);
}

/** The console's page: the filter's page of events, with names. */
export async function auditLogPage(orgId: string, filter: AuditQuery & Cursor): Promise<Page<AuditRow>> {
  const page = await auditEventsPage(orgId, filter, filter);
  return { ...page, rows: await withNames(page.rows) };
}

/** One event of the org; null for an unknown id or another org's event (IDOR: the same answer). */
export async function auditEventInOrg(orgId: string, id: string): Promise<AuditRow | null> {
  const eventId = parseRowId(id);
  if (eventId === null) return null;
  const event = await db().auditEvent.findFirst({ where: { id: eventId, orgId } });
  return event ? ((await withNames([event]))[0] ?? null) : null;
}

export async function latestAuditEvents(orgId: string, count: number): Promise<AuditRow[]> {
  return withNames(await db().auditEvent.findMany({ where: { orgId }, orderBy: { id: 'desc' }, take: count }));
}

/** The event types that occur in the org's log: the choices of the type filter. */
export async function auditEventTypes(orgId: string): Promise<string[]> {
  const groups = await db().auditEvent.groupBy({ by: ['type'], where: { orgId }, orderBy: { type: 'asc' } });
  return groups.map((group) => group.type);
}
