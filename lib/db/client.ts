// The one Prisma client of this process, on PostgreSQL (DATABASE_URL) or the embedded database.
// Opened lazily on first use, never at import: `next build` imports route modules in worker processes
// that must not open (and lock) the embedded database.
//
// THE ACCESS RULE (docs/database.md, "Access rule"): every query goes through `db()` — or `queryRows` for
// the few hand-written statements of /mcp's hot path — and both join the transaction in progress, if
// any (`inTransaction` in transaction.ts, tracked by an AsyncLocalStorage in open-transaction.ts). There
// is no second way in: the embedded database has a single connection, held by an open transaction for
// as long as it runs, so a query that went around it from inside it would wait for it forever. Work
// that must NOT be part of the transaction — a timer, a flush, a promise nobody awaits — is started
// inside `outsideTransaction(() => …)`; never await such work from inside a transaction (on the embedded
// database it waits for the connection the transaction holds).
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { env, type Env } from '@/lib/env';
import { PrismaClient, type Prisma } from '@/lib/generated/prisma/client';
import { existingProcessSingleton, forgetProcessSingleton, processSingleton } from '@/lib/server/process-singleton';
import { openEmbeddedDatabase } from './embedded';
import { openTransaction } from './open-transaction';

export { outsideTransaction } from './open-transaction';

/** A client that may be a transaction's: what `db()` returns, and what `inTransaction` hands its work. */
export type Tx = Prisma.TransactionClient;

export type Database = {
  kind: 'postgres' | 'embedded';
  prisma: PrismaClient;
  /** The PGlite instance itself (embedded only): the migration runner talks to it directly. */
  pglite: PGlite | null;
  /** The connection pool Prisma uses (PostgreSQL only), shared with the few hand-written statements. */
  pool: pg.Pool | null;
};

/** The opened database (its kind, Prisma client, driver). Queries go through `db()`, not its `prisma`. */
export function database(): Database {
  return processSingleton('database', () => openDatabase(env().database));
}

/** Prisma Client for the configured database — the open transaction's, when called inside one. */
export function db(): Tx {
  return openTransaction<Tx>()?.tx ?? database().prisma;
}

function openDatabase(config: Env['database']): Database {
  if (config.kind === 'postgres') {
    // Idle connections are kept for 5 minutes, not pg's 10 s: a new connection costs PostgreSQL a backend
    // and a cold catalog cache, and a burst after a short pause paid that on its first hundred calls.
    const pool = new pg.Pool({ connectionString: config.url, max: 10, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 300_000 });
    // An idle connection the server dropped (restart, failover) must not crash the process.
    pool.on('error', (error) => console.error('gatehouse: database connection lost', error.message));
    return { kind: 'postgres', prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pglite: null, pool };
  }
  const pglite = openEmbeddedDatabase(config.dataDir);
  return { kind: 'embedded', prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }), pglite, pool: null };
}

/**
 * One hand-written statement, straight to the driver — for /mcp's hot path only (its caller lookup and
 * call log), where Prisma's query compilation costs more than the query and runs on the event loop. On
 * PostgreSQL `name` makes it a prepared statement (parsed and planned once per connection). Rows come
 * back with timestamps as Date, jsonb parsed, arrays as arrays.
 */
export async function queryRows<Row>(statement: { name: string; text: string }, values: unknown[]): Promise<Row[]> {
  // Inside a transaction, through it (the access rule above): Prisma's raw query returns the same shapes.
  const open = openTransaction<Tx>();
  if (open) return open.tx.$queryRawUnsafe<Row[]>(statement.text, ...values);
  const { pool, pglite } = database();
  if (pool) return (await pool.query<Row & pg.QueryResultRow>({ name: statement.name, text: statement.text, values })).rows;
  return (await pglite!.query<Row>(statement.text, values)).rows;
}

export async function closeDatabase(): Promise<void> {
  const current = existingProcessSingleton<Database>('database');
  forgetProcessSingleton('database');
  if (!current) return;
  await current.prisma.$disconnect();
  await current.pool?.end().catch(() => {});
  await current.pglite?.close();
}
