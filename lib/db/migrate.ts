// Applies prisma/migrations/*/migration.sql in order and records them in `_prisma_migrations` exactly as
// `prisma migrate deploy` does (same table, same sha256 checksums), so either tool can take over from the
// other. Prisma's own schema engine cannot be downloaded on every machine; this runner needs nothing but
// a connection.
//
// Each migration runs in its own transaction together with its bookkeeping row. On PostgreSQL a
// session-level advisory lock serializes processes that start at the same time; the embedded database
// has a single owner (see embedded.ts).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Env } from '@/lib/env';

export type Migration = { name: string; sql: string; checksum: string };
export type MigrationResult = { applied: string[]; alreadyApplied: number };

/** Any 64-bit number unique to Gatehouse: `pg_advisory_lock` key for "migrations are running". */
const MIGRATION_LOCK_KEY = 7_146_237_883_512_901;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

type AppliedRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
};

/** The small surface the runner needs from either database. */
interface SqlSession {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

export function migrationsDirectory(): string {
  return process.env.GATEHOUSE_MIGRATIONS_DIR ? resolve(/*turbopackIgnore: true*/ process.env.GATEHOUSE_MIGRATIONS_DIR) : join(process.cwd(), 'prisma', 'migrations');
}

export function readMigrations(directory = migrationsDirectory()): Migration[] {
  if (!existsSync(directory)) {
    throw new MigrationError(`No migrations folder at ${directory}: run Gatehouse from its project folder.`);
  }
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(directory, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(directory, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Brings the database up to date. Safe to call from several processes at once. */
export async function migrate(database: Env['database'], pglite: PGlite | null, migrations = readMigrations()): Promise<MigrationResult> {
  if (database.kind === 'embedded') {
    if (!pglite) throw new Error('migrate: the embedded database is not open');
    return applyPending(pgliteSession(pglite), migrations);
  }
  const client = new pg.Client({ connectionString: database.url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await applyPending(pgSession(client), migrations);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

async function applyPending(session: SqlSession, migrations: Migration[]): Promise<MigrationResult> {
  await session.exec(CREATE_MIGRATIONS_TABLE);
  const rows = await session.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL');
  const done = new Map<string, AppliedRow>();
  for (const row of rows) {
    if (row.finished_at === null) {
      throw new MigrationError(
        `Migration ${row.migration_name} started but never finished. Inspect the database, then mark it ` + 'rolled back (`prisma migrate resolve --rolled-back`) before starting Gatehouse again.',
      );
    }
    done.set(row.migration_name, row);
  }
  const known = new Set(migrations.map((migration) => migration.name));
  for (const name of done.keys()) {
    if (!known.has(name)) {
      throw new MigrationError(`The database has migration ${name}, which this version of Gatehouse does not know: ` + 'it was upgraded by a newer version. Run that version instead.');
    }
  }

  const applied: string[] = [];
  for (const migration of migrations) {
    const row = done.get(migration.name);
    if (row) {
      if (row.checksum !== migration.checksum) {
        throw new MigrationError(`Migration ${migration.name} was changed after it was applied (checksum differs). ` + 'Migrations are immutable: add a new one instead.');
      }
      continue;
    }
    await applyOne(session, migration);
    applied.push(migration.name);
  }
  return { applied, alreadyApplied: done.size };
}

async function applyOne(session: SqlSession, migration: Migration): Promise<void> {
  await session.exec('BEGIN');
  try {
    await session.exec(migration.sql);
    await session.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => {});
    throw new MigrationError(`Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
  }
}

function pgSession(client: pg.Client): SqlSession {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql); // no parameters: the simple protocol accepts several statements
    },
  };
}

function pgliteSession(pglite: PGlite): SqlSession {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pglite.query<T>(sql, params)).rows;
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
  };
}
