// The org at a glance: /mcp calls per day over the last 30 days by app and by outcome, live grants, apps
// new to the org, the latest security events. Each chart is one aggregation in the database (days in UTC).
import { latestAuditEvents, type AuditRow } from '@/lib/audit/read';
import { db } from '@/lib/db/client';
import { Prisma } from '@/lib/generated/prisma/client';
import { OUTCOME_CATEGORIES, outcomeCategorySql } from '@/lib/audit/call-outcomes';
import { lookUpNames } from '@/lib/audit/log-names';

export const OVERVIEW_DAYS = 30;
/** Apps drawn one by one; the rest are summed as "Other apps". */
const TOP_CLIENTS = 5;
const DAY_MS = 86_400_000;

export type Series = { key: string; label: string };
/** One day of a chart: `day` (YYYY-MM-DD) and a count per series key. */
export type DayRow = { day: string } & Record<string, number | string>;
export type DailyChart = { series: Series[]; rows: DayRow[]; totals: Record<string, number> };

export type NewClient = { clientId: string; name: string; firstSeenAt: Date };

export type Overview = {
  since: Date;
  totalCalls: number;
  /** Calls that were not served (every category but "ok"). */
  unservedCalls: number;
  byClient: DailyChart;
  byOutcome: DailyChart;
  activeGrants: number;
  newClients: { count: number; latest: NewClient[] };
  latestEvents: AuditRow[];
};

export async function orgOverview(orgId: string, now = new Date()): Promise<Overview> {
  const days = lastDays(now);
  const since = new Date(`${days[0]}T00:00:00.000Z`);
  const [clientCounts, outcomeCounts, activeGrants, newClients, latestEvents] = await Promise.all([
    callsPerDayByClient(orgId, since),
    callsPerDayByOutcome(orgId, since),
    db().grant.count({ where: { orgId, revokedAt: null } }),
    clientsNewToOrg(orgId, new Date(now.getTime() - OVERVIEW_DAYS * DAY_MS)),
    latestAuditEvents(orgId, 10),
  ]);
  const byClient = await clientChart(days, clientCounts);
  const byOutcome = chart(
    days,
    OUTCOME_CATEGORIES.map(({ key, label }) => ({ key, label })),
    outcomeCounts.map((row) => ({ day: row.day, key: row.category, calls: row.calls })),
  );
  const totalCalls = Object.values(byOutcome.totals).reduce((sum, count) => sum + count, 0);
  return { since, totalCalls, unservedCalls: totalCalls - (byOutcome.totals.ok ?? 0), byClient, byOutcome, activeGrants, newClients, latestEvents };
}

/** The last 30 days, oldest first, today (UTC) included. */
function lastDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: OVERVIEW_DAYS }, (_, index) => new Date(today - (OVERVIEW_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10));
}

const DAY_SQL = Prisma.sql`to_char(date_trunc('day', "at" AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;

function callsPerDayByClient(orgId: string, since: Date) {
  return db().$queryRaw<{ day: string; clientId: string | null; calls: number }[]>`
    SELECT ${DAY_SQL} AS day, client_id AS "clientId", count(*)::int AS calls
    FROM mcp_calls
    WHERE org_id = ${orgId} AND "at" >= ${since}
    GROUP BY 1, 2`;
}

function callsPerDayByOutcome(orgId: string, since: Date) {
  return db().$queryRaw<{ day: string; category: string; calls: number }[]>`
    SELECT ${DAY_SQL} AS day, ${outcomeCategorySql()} AS category, count(*)::int AS calls
    FROM mcp_calls
    WHERE org_id = ${orgId} AND "at" >= ${since}
    GROUP BY 1, 2`;
}

/** The busiest apps as their own series, the others summed. */
async function clientChart(days: string[], counts: { day: string; clientId: string | null; calls: number }[]): Promise<DailyChart> {
  const totals = new Map<string, number>();
  for (const row of counts) totals.set(row.clientId ?? '', (totals.get(row.clientId ?? '') ?? 0) + row.calls);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([clientId]) => clientId);
  const top = ranked.slice(0, ranked.length > TOP_CLIENTS ? TOP_CLIENTS - 1 : TOP_CLIENTS);
  const names = await lookUpNames([], top);
  const keyOf = new Map(top.map((clientId, index) => [clientId, `app${index}`]));
  const series: Series[] = top.map((clientId, index) => ({ key: `app${index}`, label: names.client(clientId || null)?.name ?? 'Unknown app' }));
  if (ranked.length > top.length) series.push({ key: 'others', label: 'Other apps' });
  return chart(
    days,
    series,
    counts.map((row) => ({ day: row.day, key: keyOf.get(row.clientId ?? '') ?? 'others', calls: row.calls })),
  );
}

function chart(days: string[], series: Series[], counts: { day: string; key: string; calls: number }[]): DailyChart {
  const byDay = new Map(days.map((day) => [day, { day, ...Object.fromEntries(series.map(({ key }) => [key, 0])) } as DayRow]));
  const totals: Record<string, number> = Object.fromEntries(series.map(({ key }) => [key, 0]));
  for (const { day, key, calls } of counts) {
    const row = byDay.get(day);
    if (!row || !Object.hasOwn(totals, key)) continue;
    row[key] = (row[key] as number) + calls;
    totals[key] = totals[key]! + calls;
  }
  return { series, rows: [...byDay.values()], totals };
}

/** Registrations first seen in the period that were granted in this org, or that its owner registered. */
async function clientsNewToOrg(orgId: string, since: Date): Promise<Overview['newClients']> {
  const where = { firstSeenAt: { gte: since }, OR: [{ grants: { some: { orgId } } }, { ownerOrgId: orgId }] };
  const [count, latest] = await Promise.all([
    db().oAuthClient.count({ where }),
    db().oAuthClient.findMany({ where, orderBy: { firstSeenAt: 'desc' }, take: 5, select: { clientId: true, name: true, firstSeenAt: true } }),
  ]);
  return { count, latest: latest.map((client) => ({ clientId: client.clientId, name: client.name ?? client.clientId, firstSeenAt: client.firstSeenAt })) };
}
