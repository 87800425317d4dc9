// The /mcp call log (SPEC §7): one row per request, written off the response path. Calls go into a
// bounded in-memory buffer that is flushed to the database every second and on shutdown. When the
// buffer is full (the database is slow or down), the oldest entries are dropped and counted, never the
// caller's response delayed. The same flush marks grants as used, at most once a minute per grant.
import { db } from '@/lib/db/client';

export type CallRecord = {
  at: Date;
  personId: string | null;
  orgId: string | null;
  clientId: string | null;
  grantId: string | null;
  method: string | null;
  toolName: string | null;
  outcome: string;
  httpStatus: number;
  latencyMs: number;
  protocolVersion: string | null;
  traceId: string | null;
};

const MAX_BUFFERED = 10_000;
const FLUSH_EVERY_MS = 1_000;
const GRANT_TOUCH_INTERVAL_MS = 60_000;

type State = {
  buffer: CallRecord[];
  dropped: number;
  timer?: NodeJS.Timeout;
  flushing?: Promise<void>;
  touchedAt: Map<string, number>;
};

const holder = globalThis as unknown as { gatehouseCallLog?: State };

function state(): State {
  holder.gatehouseCallLog ??= { buffer: [], dropped: 0, touchedAt: new Map() };
  return holder.gatehouseCallLog;
}

export function recordCall(record: CallRecord): void {
  const current = state();
  if (current.buffer.length >= MAX_BUFFERED) {
    current.buffer.shift();
    current.dropped++;
  }
  current.buffer.push(record);
  if (!current.timer) {
    // Flushed on shutdown by lib/server/shutdown.ts.
    current.timer = setInterval(() => void flushCallLog(), FLUSH_EVERY_MS);
    current.timer.unref();
  }
}

/** Writes what is buffered. Safe to call concurrently: one flush at a time. */
export async function flushCallLog(): Promise<void> {
  const current = state();
  if (current.flushing) return current.flushing;
  if (current.buffer.length === 0) return;
  const batch = current.buffer.splice(0, current.buffer.length);
  current.flushing = (async () => {
    try {
      await db().mcpCall.createMany({ data: batch });
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

async function touchGrants(current: State, batch: CallRecord[]): Promise<void> {
  const now = Date.now();
  const due = [...new Set(batch.map((record) => record.grantId).filter((id): id is string => Boolean(id)))].filter(
    (grantId) => now - (current.touchedAt.get(grantId) ?? 0) >= GRANT_TOUCH_INTERVAL_MS,
  );
  if (due.length === 0) return;
  const threshold = new Date(now - GRANT_TOUCH_INTERVAL_MS);
  await db().grant.updateMany({
    where: { id: { in: due }, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: threshold } }] },
    data: { lastUsedAt: new Date(now) },
  });
  for (const grantId of due) current.touchedAt.set(grantId, now);
  if (current.touchedAt.size > 100_000) current.touchedAt.clear();
}

/** Removes call-log rows older than the retention period. */
export async function pruneCallLog(retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * 24 * 60 * 60 * 1000);
  const { count } = await db().mcpCall.deleteMany({ where: { at: { lt: cutoff } } });
  return count;
}
