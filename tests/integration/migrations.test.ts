// The migration runner: Prisma-compatible bookkeeping, idempotence, refusal of edited or unknown
// migrations, rollback of a failing one, and concurrent starts on PostgreSQL.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrationsDirectory, readMigrations, type Migration } from '@/lib/db/migrate';
import { DATABASES } from '../helpers/databases';
import { openTestDatabase, type TestDatabase } from '../helpers/prisma';

const open: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((database) => database.close()));
});

async function fresh(kind: (typeof DATABASES)[number]) {
  const database = await openTestDatabase(kind, { migrated: false });
  open.push(database);
  const config =
    kind === 'embedded' ? ({ kind, dataDir: '' } as const) : ({ kind, url: database.url as string } as const);
  return { database, run: (migrations?: Migration[]) => migrate(config, database.pglite, migrations) };
}

async function rows(database: TestDatabase) {
  return database.prisma.$queryRawUnsafe<
    { migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }[]
  >('SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name');
}

describe.each(DATABASES)('migrations on the %s database', (kind) => {
  it('records each migration as prisma migrate deploy does, and a second run applies nothing', async () => {
    const { database, run } = await fresh(kind);
    const migrations = readMigrations();
    const first = await run();
    expect(first.applied).toEqual(migrations.map((migration) => migration.name));
    const recorded = await rows(database);
    expect(recorded).toHaveLength(migrations.length);
    for (const [index, migration] of migrations.entries()) {
      const sql = readFileSync(join(migrationsDirectory(), migration.name, 'migration.sql'));
      expect(recorded[index]).toMatchObject({
        migration_name: migration.name,
        checksum: createHash('sha256').update(sql).digest('hex'),
        applied_steps_count: 1,
      });
      expect(recorded[index]!.finished_at).toBeInstanceOf(Date);
    }
    expect(await run()).toEqual({ applied: [], alreadyApplied: migrations.length });
  });

  it('refuses to start when an applied migration was edited', async () => {
    const { run } = await fresh(kind);
    await run();
    const edited = readMigrations().map((migration, index) =>
      index === 0 ? { ...migration, checksum: 'f'.repeat(64) } : migration,
    );
    await expect(run(edited)).rejects.toThrow(/was changed after it was applied/);
  });

  it('refuses a database migrated by a newer version', async () => {
    const { run } = await fresh(kind);
    const migrations = readMigrations();
    await run([...migrations, { name: '29990101000000_future', sql: 'SELECT 1;', checksum: 'a'.repeat(64) }]);
    await expect(run(migrations)).rejects.toThrow(/29990101000000_future.*newer version/);
  });

  it('rolls a failing migration back whole, leaving no trace of it', async () => {
    const { database, run } = await fresh(kind);
    const broken = {
      name: '29990101000000_broken',
      sql: 'CREATE TABLE "half_done" (id INT); SELECT * FROM "no_such_table";',
      checksum: 'b'.repeat(64),
    };
    await expect(run([...readMigrations(), broken])).rejects.toThrow(/29990101000000_broken failed and was rolled back/);
    const names = (await rows(database)).map((row) => row.migration_name);
    expect(names).not.toContain(broken.name);
    const tables = await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'half_done'`,
    );
    expect(Number(tables[0]!.n)).toBe(0);
  });
});

describe.runIf(DATABASES.includes('postgres'))('migrations started by several processes at once', () => {
  it('are applied exactly once', async () => {
    const { database, run } = await fresh('postgres');
    const results = await Promise.all([run(), run(), run(), run()]);
    const appliedCounts = results.map((result) => result.applied.length).sort();
    expect(appliedCounts).toEqual([0, 0, 0, readMigrations().length]);
    expect(await rows(database)).toHaveLength(readMigrations().length);
  });
});
