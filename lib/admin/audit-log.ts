// The org's audit log for its admins (SPEC §7): filter, page, look at one event, export. Every query is
// scoped to the admin's org: an event of another org is never listed, shown or exported.
import { z } from 'zod';
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { lookUpNames, type ClientName, type PersonName } from './log-names';
import {
  batchesByKeyset,
  commonFilterFields,
  optionalText,
  pageByKeyset,
  parseFilter,
  parseRowId,
  timeRange,
  type IdRange,
  type Page,
  type SearchInput,
  type TimeRange,
} from './log-filter';

const auditFilterSchema = z.object({
  type: optionalText('The event type', 100).refine((value) => value === undefined || /^[a-z0-9_.]+$/.test(value), 'The event type is not valid.'),
  ...commonFilterFields,
});

export type AuditFilter = z.infer<typeof auditFilterSchema> & { range?: TimeRange };

/** Reads the filter from search parameters; throws a ConsoleError ("invalid") naming the first problem. */
export function parseAuditFilter(input: SearchInput): AuditFilter {
  const filter = parseFilter(auditFilterSchema, input);
  return { ...filter, range: timeRange(filter.from, filter.to) };
}

/** The filter as search parameters (without the page cursor), for links that keep it. */
export function auditFilterParams(filter: AuditFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['type', 'person', 'client', 'from', 'to'] as const) {
    const value = filter[name];
    if (value) params.set(name, value);
  }
  return params;
}

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

function where(orgId: string, filter: AuditFilter, ids: IdRange = {}): Prisma.AuditEventWhereInput {
  return {
    orgId,
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.person ? { actorPersonId: filter.person } : {}),
    ...(filter.client ? { clientId: filter.client } : {}),
    ...(filter.range ? { createdAt: filter.range } : {}),
    ...(ids.lt !== undefined || ids.gt !== undefined ? { id: ids } : {}),
  };
}

type EventRecord = Prisma.AuditEventGetPayload<object>;

async function withNames(events: EventRecord[]): Promise<AuditRow[]> {
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

export async function auditLogPage(orgId: string, filter: AuditFilter): Promise<Page<AuditRow>> {
  const page = await pageByKeyset(filter, (ids, order, take) =>
    db().auditEvent.findMany({ where: where(orgId, filter, ids), orderBy: { id: order }, take }),
  );
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

export const AUDIT_EXPORT_COLUMNS = ['id', 'at', 'type', 'actorPersonId', 'actorName', 'actorEmail', 'clientId', 'clientName', 'grantId', 'ip', 'data'] as const;

export type AuditExportRecord = Record<(typeof AUDIT_EXPORT_COLUMNS)[number], unknown>;

/** Every event matching the filter (all pages), newest first, in batches. */
export async function* auditExportBatches(orgId: string, filter: AuditFilter): AsyncGenerator<AuditExportRecord[]> {
  const batches = batchesByKeyset((ids, take) => db().auditEvent.findMany({ where: where(orgId, filter, ids), orderBy: { id: 'desc' }, take }));
  for await (const events of batches) yield (await withNames(events)).map(exportRecord);
}

function exportRecord(row: AuditRow): AuditExportRecord {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    type: row.type,
    actorPersonId: row.actor?.id ?? null,
    actorName: row.actor?.name ?? null,
    actorEmail: row.actor?.email ?? null,
    clientId: row.client?.id ?? null,
    clientName: row.client?.name ?? null,
    grantId: row.grantId,
    ip: row.ip,
    data: row.data,
  };
}
