// The /mcp call log (docs/protocol.md §7): one row per request of an organization's connection, written off the
// response path. Calls go into a bounded in-memory buffer that is flushed to the database every second
// and on shutdown. When the buffer is full (the database is slow or down), the oldest entries are
// dropped and counted, never the caller's response delayed. The same flush marks grants as used, at
// most once a minute per grant.
//
// A request that reached no organization (no valid access token, a foreign Origin, a wrong method)
// belongs to no org's log and no console shows it: it is counted by outcome in this instance's memory
// instead, and the counts are logged once a minute (when there were any) and on shutdown — a flood of
// them costs neither a row each nor 30 days of storage.
//
// Both writes are hand-written statements whose text does not depend on the batch's size (arrays,
// unnested): Prisma compiles a createMany of a few hundred rows on the event loop, which took 50–100 ms
// once a second under load and showed as the /mcp p99.
import { db, outsideTransaction, queryRows } from '@/lib/db/client';
import { processSingleton } from '@/lib/server/process-singleton';
import type { CallOutcome } from '@/lib/mcp/call-outcome';

export type CallRecord = {
  at: Date;
  personId: string | null;
  orgId: string | null;
  clientId: string | null;
  grantId: string | null;
  method: string | null;
  toolName: string | null;
  outcome: CallOutcome;
  httpStatus: number;
  latencyMs: number;
  protocolVersion: string | null;
  traceId: string | null;
  /** The connector's slug, for a call of a connector tool. */
  connector: string | null;
  /** The upstream's part of latencyMs, when an upstream was called. */
  upstreamLatencyMs: number | null;
};

const MAX_BUFFERED = 10_000;
const FLUSH_EVERY_MS = 1_000;
const GRANT_TOUCH_INTERVAL_MS = 60_000;

const REPORT_UNATTRIBUTED_EVERY_MS = 60_000;

type State = {
  buffer: CallRecord[];
  dropped: number;
  timer?: NodeJS.Timeout;
  flushing?: Promise<void>;
  touchedAt: Map<string, number>;
  /** Requests of no organization since `unattributedSince`, by outcome. */
  unattributed: Map<string, number>;
  unattributedSince: number;
};

function state(): State {
  return processSingleton('callLog', () => ({ buffer: [], dropped: 0, touchedAt: new Map(), unattributed: new Map(), unattributedSince: Date.now() }));
}

export function recordCall(record: CallRecord): void {
  const current = state();
  if (record.orgId === null) {
    current.unattributed.set(record.outcome, (current.unattributed.get(record.outcome) ?? 0) + 1);
  } else {
    if (current.buffer.length >= MAX_BUFFERED) {
      current.buffer.shift();
      current.dropped++;
    }
    current.buffer.push(record);
  }
  if (!current.timer) {
    // Flushed on shutdown by lib/server/shutdown.ts. Outside any transaction: the first call may be
    // recorded inside one, and every flush of the process would otherwise inherit it.
    current.timer = outsideTransaction(() =>
      setInterval(() => {
        if (Date.now() - current.unattributedSince >= REPORT_UNATTRIBUTED_EVERY_MS) reportUnattributed(current);
        void writeBuffered();
      }, FLUSH_EVERY_MS),
    );
    current.timer.unref();
  }
}

/** Logs, then resets, the counts of requests that reached no organization (one line, only if any). */
function reportUnattributed(current: State): void {
  const counts = [...current.unattributed].sort((a, b) => b[1] - a[1]);
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  if (total > 0) {
    const seconds = Math.round((Date.now() - current.unattributedSince) / 1000);
    console.log(
      `mcp: ${total} request${total === 1 ? '' : 's'} without a valid access token in the last ${seconds} s, counted, not logged: ` +
        counts.map(([outcome, count]) => `${outcome} ${count}`).join(', '),
    );
  }
  current.unattributed.clear();
  current.unattributedSince = Date.now();
}

/**
 * Writes what is buffered, including what was recorded while an earlier flush was still writing (so that
 * the flush on shutdown misses nothing), and logs the counts of requests of no organization. Safe to
 * call concurrently: one flush at a time.
 */
export async function flushCallLog(): Promise<void> {
  reportUnattributed(state());
  return writeBuffered();
}

async function writeBuffered(): Promise<void> {
  const current = state();
  if (current.flushing) {
    await current.flushing;
    return writeBuffered();
  }
  if (current.buffer.length === 0) return;
  const batch = current.buffer.splice(0, current.buffer.length);
  current.flushing = (async () => {
    try {
      await insertCalls(batch);
      await touchGrants(current, batch);
      if (current.dropped) {
        console.error(`gatehouse: the call log dropped ${current.dropped} entries while the database was unavailable`);
        current.dropped = 0;
      }
    } catch (error) {
      // Put them back (within the bound) for the next attempt.
      current.buffer.unshift(...batch.slice(Math.max(0, batch.length - (MAX_BUFFERED - current.buffer.length))));
      console.error('gatehouse: writing the call log failed', (error as Error).message);
    } finally {
      current.flushing = undefined;
    }
  })();
  return current.flushing;
}

const INSERT_CALLS = {
  name: 'gatehouse_call_log_insert',
  text: `
INSERT INTO mcp_calls (at, person_id, org_id, client_id, grant_id, method, tool_name, outcome, http_status, latency_ms, protocol_version, trace_id,
                       connector, upstream_latency_ms)
SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::int[], $10::int[], $11::text[], $12::text[], $13::text[], $14::int[])`,
};

const TOUCH_GRANTS = {
  name: 'gatehouse_call_log_touch_grants',
  text: `UPDATE grants SET last_used_at = $2 WHERE id = ANY($1::text[]) AND (last_used_at IS NULL OR last_used_at < $3)`,
};

async function insertCalls(batch: CallRecord[]): Promise<void> {
  const column = <K extends keyof CallRecord>(key: K) => batch.map((record) => record[key]);
  await queryRows(INSERT_CALLS, [
    column('at'),
    column('personId'),
    column('orgId'),
    column('clientId'),
    column('grantId'),
    column('method'),
    column('toolName'),
    column('outcome'),
    column('httpStatus'),
    column('latencyMs'),
    column('protocolVersion'),
    column('traceId'),
    column('connector'),
    column('upstreamLatencyMs'),
  ]);
}

async function touchGrants(current: State, batch: CallRecord[]): Promise<void> {
  const now = Date.now();
  const due = [...new Set(batch.map((record) => record.grantId).filter((id): id is string => Boolean(id)))].filter((grantId) => now - (current.touchedAt.get(grantId) ?? 0) >= GRANT_TOUCH_INTERVAL_MS);
  if (due.length === 0) return;
  await queryRows(TOUCH_GRANTS, [due, new Date(now), new Date(now - GRANT_TOUCH_INTERVAL_MS)]);
  for (const grantId of due) current.touchedAt.set(grantId, now);
  if (current.touchedAt.size > 100_000) current.touchedAt.clear();
}

/** Removes call-log rows older than the retention period. */
export async function pruneCallLog(retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * 24 * 60 * 60 * 1000);
  const { count } = await db().mcpCall.deleteMany({ where: { at: { lt: cutoff } } });
  return count;
}
