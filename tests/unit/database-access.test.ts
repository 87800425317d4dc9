// The access rule of lib/db/client.ts, on the embedded database (one connection): `db()` and `queryRows`
// inside `inTransaction` join it instead of waiting forever for the connection it holds, and background
// work started inside a transaction — a timer, the call-log flush — never runs in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushCallLog, recordCall } from '@/lib/audit/call-log';
import { closeDatabase, database, db, outsideTransaction, queryRows } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { openTransaction } from '@/lib/db/open-transaction';
import { inTransaction } from '@/lib/db/transaction';
import { parseEnv } from '@/lib/env';
import { forgetProcessSingleton, replaceProcessSingleton } from '@/lib/server/process-singleton';

let dataDir: string;

/** Fails instead of hanging: a deadlocked query never settles. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

class RolledBack extends Error {}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-access-'));
  const config = parseEnv({ DATA_DIR: dataDir });
  replaceProcessSingleton('env', config);
  await migrate(config.database, database().pglite);
}, 120_000); // opening PGlite and applying every migration takes several seconds on a busy machine

afterAll(async () => {
  await closeDatabase();
  forgetProcessSingleton('env');
  forgetProcessSingleton('callLog');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('one way into the database', () => {
  it('runs db() inside a transaction on the embedded database, in that transaction', async () => {
    expect(database().kind).toBe('embedded');
    const tag = `inside-${Date.now()}`;
    await expect(
      within(
        5_000,
        inTransaction(async (tx) => {
          await tx.mcpCall.create({ data: { outcome: tag, httpStatus: 200, latencyMs: 1 } });
          // Sees the transaction's own uncommitted row: the same connection, not a second one.
          const seen = await db().mcpCall.count({ where: { outcome: tag } });
          const rows = await queryRows<{ n: number }>({ name: 'access_rule_count', text: 'SELECT count(*)::int AS n FROM mcp_calls WHERE outcome = $1' }, [tag]);
          throw new RolledBack(`${seen} ${rows[0]!.n}`);
        }),
      ),
    ).rejects.toThrow(new RolledBack('1 1'));
    expect(await db().mcpCall.count({ where: { outcome: tag } })).toBe(0); // rolled back with the transaction
  });

  it('starts timers outside the transaction with outsideTransaction, even while it is open', async () => {
    const seen = await inTransaction(async () => {
      expect(openTransaction()).toBeDefined();
      const inTimer = new Promise<boolean>((resolve) => outsideTransaction(() => setTimeout(() => resolve(openTransaction() !== undefined), 5)));
      return inTimer; // the transaction is still open when the timer fires
    });
    expect(seen).toBe(false);
  });

  it('flushes the call log outside a transaction that recorded the first call, which then rolled back', async () => {
    forgetProcessSingleton('callLog'); // a fresh log: its flush timer is started by the call below
    const tag = `flushed-${Date.now()}`;
    await expect(
      inTransaction(async () => {
        recordCall({
          at: new Date(),
          personId: null,
          orgId: 'org-1',
          clientId: null,
          grantId: null,
          method: 'tools/list',
          toolName: null,
          outcome: 'ok',
          httpStatus: 200,
          latencyMs: 1,
          protocolVersion: null,
          traceId: tag,
          connector: null,
          upstreamLatencyMs: null,
        });
        // Held open past the flush interval (1 s): a flush that joined this transaction would roll back with it.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        throw new RolledBack('rolled back');
      }),
    ).rejects.toThrow(RolledBack);
    await within(5_000, flushCallLog());
    expect(await db().mcpCall.count({ where: { traceId: tag } })).toBe(1);
  });
});
