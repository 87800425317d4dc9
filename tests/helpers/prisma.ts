// A Prisma client on a fresh, migrated database of either kind, for tests that talk to the database
// without a server.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { migrate } from '@/lib/db/migrate';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createPostgresDatabase, type DatabaseKind } from './databases';

export type TestDatabase = {
  kind: DatabaseKind;
  prisma: PrismaClient;
  pglite: PGlite | null;
  url: string | null;
  close(): Promise<void>;
};

export async function openTestDatabase(kind: DatabaseKind, { migrated = true } = {}): Promise<TestDatabase> {
  if (kind === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-db-'));
    const pglite = new PGlite(dir);
    if (migrated) await migrate({ kind: 'embedded', dataDir: dir }, pglite);
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      kind,
      prisma,
      pglite,
      url: null,
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createPostgresDatabase();
  if (migrated) await migrate({ kind: 'postgres', url: database.url }, null);
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  return {
    kind,
    prisma,
    pglite: null,
    url: database.url,
    async close() {
      await prisma.$disconnect();
      await database.drop();
    },
  };
}
