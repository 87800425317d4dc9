// The one Prisma client of this process, on PostgreSQL (DATABASE_URL) or the embedded database.
// Opened lazily on first use, never at import: `next build` imports route modules in worker processes
// that must not open (and lock) the embedded database.
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { env, type Env } from '@/lib/env';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { openEmbeddedDatabase } from './embedded';

export type Database = {
  kind: 'postgres' | 'embedded';
  prisma: PrismaClient;
  /** The PGlite instance itself (embedded only): the migration runner talks to it directly. */
  pglite: PGlite | null;
};

const holder = globalThis as unknown as { gatehouseDatabase?: Database };

export function database(): Database {
  holder.gatehouseDatabase ??= openDatabase(env().database);
  return holder.gatehouseDatabase;
}

/** Prisma Client for the configured database. */
export function db(): PrismaClient {
  return database().prisma;
}

function openDatabase(config: Env['database']): Database {
  if (config.kind === 'postgres') {
    const adapter = new PrismaPg({ connectionString: config.url, max: 10, connectionTimeoutMillis: 5_000 });
    return { kind: 'postgres', prisma: new PrismaClient({ adapter }), pglite: null };
  }
  const pglite = openEmbeddedDatabase(config.dataDir);
  return { kind: 'embedded', prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }), pglite };
}

export async function closeDatabase(): Promise<void> {
  const current = holder.gatehouseDatabase;
  if (!current) return;
  holder.gatehouseDatabase = undefined;
  await current.prisma.$disconnect();
  await current.pglite?.close();
}
