// Which audit events to read: the console's filter (URL search parameters: type, person, client, whole
// UTC days) and the read_audit_log tool's arguments come down to the same query, scoped to one org.
import { z } from 'zod';
import { commonFilterFields, optionalText, parseFilter, timeRange, type IdRange, type SearchInput, type TimeRange } from './log-filter';
import type { Prisma } from '@/lib/generated/prisma/client';

/** What every reader of the log may narrow it by. */
export type AuditQuery = { type?: string; person?: string; client?: string; range?: TimeRange };

const auditFilterSchema = z.object({
  type: optionalText('The event type', 100).refine((value) => value === undefined || /^[a-z0-9_.]+$/.test(value), 'The event type is not valid.'),
  ...commonFilterFields,
});

/** The console's filter: the query, the days it was written with, and the page cursor. */
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

/** The org's events matching the query, within an id range (a page). */
export function auditWhere(orgId: string, query: AuditQuery, ids: IdRange = {}): Prisma.AuditEventWhereInput {
  return {
    orgId,
    ...(query.type ? { type: query.type } : {}),
    ...(query.person ? { actorPersonId: query.person } : {}),
    ...(query.client ? { clientId: query.client } : {}),
    ...(query.range ? { createdAt: query.range } : {}),
    ...(ids.lt !== undefined || ids.gt !== undefined ? { id: ids } : {}),
  };
}
