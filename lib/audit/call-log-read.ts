// The org's /mcp call log for its admins (docs/protocol.md §7): filter, page, look at one call, export. Every query
// is scoped to the admin's org: another org's calls are never listed, shown or exported.
import { z } from 'zod';
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { outcomeCategory, outcomeCondition, OUTCOME_CATEGORY_KEYS, type OutcomeCategory } from './call-outcomes';
import { lookUpNames, type ClientName, type PersonName } from './log-names';
import { batchesByKeyset, commonFilterFields, optionalText, pageByKeyset, parseFilter, parseRowId, timeRange, type IdRange, type Page, type SearchInput, type TimeRange } from './log-filter';

const callFilterSchema = z.object({
  method: optionalText('The method', 256),
  tool: optionalText('The tool', 256),
  outcome: z.preprocess((value) => (value === '' ? undefined : value), z.enum(OUTCOME_CATEGORY_KEYS, { error: 'The outcome is not one of the listed ones.' }).optional()),
  ...commonFilterFields,
});

export type CallFilter = z.infer<typeof callFilterSchema> & { range?: TimeRange };

/** Reads the filter from search parameters; throws a ConsoleError ("invalid") naming the first problem. */
export function parseCallFilter(input: SearchInput): CallFilter {
  const filter = parseFilter(callFilterSchema, input);
  return { ...filter, range: timeRange(filter.from, filter.to) };
}

/** The filter as search parameters (without the page cursor), for links that keep it. */
export function callFilterParams(filter: CallFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['method', 'tool', 'outcome', 'person', 'client', 'from', 'to'] as const) {
    const value = filter[name];
    if (value) params.set(name, value);
  }
  return params;
}

export type CallRow = {
  id: bigint;
  at: Date;
  person: PersonName | null;
  client: ClientName | null;
  grantId: string | null;
  method: string | null;
  toolName: string | null;
  outcome: string;
  category: OutcomeCategory;
  httpStatus: number;
  latencyMs: number;
  protocolVersion: string | null;
  traceId: string | null;
  /** The connector's slug, for a call of a connector tool (docs/connectors.md). */
  connector: string | null;
  /** The upstream's part of latencyMs, when an upstream was called. */
  upstreamLatencyMs: number | null;
};

function where(orgId: string, filter: CallFilter, ids: IdRange = {}): Prisma.McpCallWhereInput {
  return {
    orgId,
    ...(filter.method ? { method: filter.method } : {}),
    ...(filter.tool ? { toolName: filter.tool } : {}),
    ...(filter.outcome ? outcomeCondition(filter.outcome) : {}),
    ...(filter.person ? { personId: filter.person } : {}),
    ...(filter.client ? { clientId: filter.client } : {}),
    ...(filter.range ? { at: filter.range } : {}),
    ...(ids.lt !== undefined || ids.gt !== undefined ? { id: ids } : {}),
  };
}

type CallRecord = Prisma.McpCallGetPayload<object>;

async function withNames(calls: CallRecord[]): Promise<CallRow[]> {
  const names = await lookUpNames(
    calls.map((call) => call.personId),
    calls.map((call) => call.clientId),
  );
  return calls.map((call) => ({
    id: call.id,
    at: call.at,
    person: names.person(call.personId),
    client: names.client(call.clientId),
    grantId: call.grantId,
    method: call.method,
    toolName: call.toolName,
    outcome: call.outcome,
    category: outcomeCategory(call.outcome),
    httpStatus: call.httpStatus,
    latencyMs: call.latencyMs,
    protocolVersion: call.protocolVersion,
    traceId: call.traceId,
    connector: call.connector,
    upstreamLatencyMs: call.upstreamLatencyMs,
  }));
}

export async function callLogPage(orgId: string, filter: CallFilter): Promise<Page<CallRow>> {
  const page = await pageByKeyset(filter, (ids, order, take) => db().mcpCall.findMany({ where: where(orgId, filter, ids), orderBy: { id: order }, take }));
  return { ...page, rows: await withNames(page.rows) };
}

/** One call of the org; null for an unknown id or another org's call (IDOR: the same answer). */
export async function callInOrg(orgId: string, id: string): Promise<CallRow | null> {
  const callId = parseRowId(id);
  if (callId === null) return null;
  const call = await db().mcpCall.findFirst({ where: { id: callId, orgId } });
  return call ? ((await withNames([call]))[0] ?? null) : null;
}

export const CALL_EXPORT_COLUMNS = [
  'id',
  'at',
  'personId',
  'personName',
  'personEmail',
  'clientId',
  'clientName',
  'grantId',
  'method',
  'toolName',
  'outcome',
  'outcomeCategory',
  'httpStatus',
  'latencyMs',
  'protocolVersion',
  'traceId',
  'connector',
  'upstreamLatencyMs',
] as const;

export type CallExportRecord = Record<(typeof CALL_EXPORT_COLUMNS)[number], unknown>;

/** Every call matching the filter (all pages), newest first, in batches. */
export async function* callExportBatches(orgId: string, filter: CallFilter): AsyncGenerator<CallExportRecord[]> {
  const batches = batchesByKeyset((ids, take) => db().mcpCall.findMany({ where: where(orgId, filter, ids), orderBy: { id: 'desc' }, take }));
  for await (const calls of batches) yield (await withNames(calls)).map(exportRecord);
}

function exportRecord(row: CallRow): CallExportRecord {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    personId: row.person?.id ?? null,
    personName: row.person?.name ?? null,
    personEmail: row.person?.email ?? null,
    clientId: row.client?.id ?? null,
    clientName: row.client?.name ?? null,
    grantId: row.grantId,
    method: row.method,
    toolName: row.toolName,
    outcome: row.outcome,
    outcomeCategory: row.category,
    httpStatus: row.httpStatus,
    latencyMs: row.latencyMs,
    protocolVersion: row.protocolVersion,
    traceId: row.traceId,
    connector: row.connector,
    upstreamLatencyMs: row.upstreamLatencyMs,
  };
}
