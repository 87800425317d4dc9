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

describe.each(DATABASES)('data migrations on the %s database', (kind) => {
  it('rewrites the resource that grants, codes, refresh tokens and open consents stored in another spelling to the canonical PUBLIC_URL/mcp', async () => {
    const { database, run } = await fresh(kind);
    const name = '20261202000000_canonical_resource';
    await run(readMigrations().filter((migration) => migration.name < name));
    const canonical = 'https://gatehouse.example/mcp';
    // Spellings the authorization endpoint used to accept and store as sent.
    const spellings = [
      canonical,
      'https://gatehouse.example/mcp/',
      'https://gatehouse.example/mcp//',
      'HTTPS://GateHouse.Example/mcp',
      'https://gatehouse.example:443/mcp',
      'https://gatehouse.example/mcp?',
      'https://gatehouse.example/mcp#',
      'https://gatehouse.example/x/../mcp',
      'https://gatehouse.example/./mcp/.',
      'https://gatehouse.example/x/%2E%2e/mcp',
      ' https://gatehouse.example/mcp\t',
      'http://localhost:3000/mcp/',
    ];
    const insert = (model: string, id: string, payload: unknown) =>
      database.prisma.$executeRawUnsafe('INSERT INTO "oidc_models" ("model", "id", "payload") VALUES ($1, $2, $3::jsonb)', model, id, JSON.stringify(payload));
    for (const [index, spelling] of spellings.entries()) {
      await insert('Grant', `g${index}`, { accountId: 'p', clientId: 'c', resources: { [spelling]: 'mcp:read mcp:write' }, openid: { scope: 'openid' } });
      await insert('RefreshToken', `r${index}`, { grantId: `g${index}`, resource: spelling, scope: 'mcp:read' });
      await insert('AuthorizationCode', `c${index}`, { grantId: `g${index}`, resource: [spelling, canonical] });
      await insert('Interaction', `i${index}`, { params: { client_id: 'c', resource: spelling } });
    }
    // What was never the resource stays as it was (its requests are refused with invalid_target).
    await insert('RefreshToken', 'foreign', { resource: 'https://gatehouse.example/mcp?x=1' });
    await insert('Grant', 'no-resource', { accountId: 'p', clientId: 'c', openid: { scope: 'openid' } });
    await run();

    const payloads = new Map(
      (await database.prisma.$queryRawUnsafe<{ model: string; id: string; payload: Record<string, any> }[]>('SELECT model, id, payload FROM "oidc_models"')).map(
        (row) => [`${row.model}:${row.id}`, row.payload],
      ),
    );
    for (const [index, spelling] of spellings.entries()) {
      const expected = spelling.startsWith('http://localhost') ? 'http://localhost:3000/mcp' : canonical;
      expect(payloads.get(`Grant:g${index}`), spelling).toEqual({ accountId: 'p', clientId: 'c', resources: { [expected]: 'mcp:read mcp:write' }, openid: { scope: 'openid' } });
      expect(payloads.get(`RefreshToken:r${index}`)!.resource, spelling).toBe(expected);
      expect([...payloads.get(`AuthorizationCode:c${index}`)!.resource].sort(), spelling).toEqual(expected === canonical ? [canonical] : [expected, canonical].sort());
      expect(payloads.get(`Interaction:i${index}`)!.params.resource, spelling).toBe(expected);
    }
    expect(payloads.get('RefreshToken:foreign')!.resource).toBe('https://gatehouse.example/mcp?x=1');
    expect(payloads.get('Grant:no-resource')).toEqual({ accountId: 'p', clientId: 'c', openid: { scope: 'openid' } });
    // The migration leaves no function of its own behind.
    const functions = await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(
      "SELECT count(*) AS n FROM pg_proc WHERE proname = 'gatehouse_canonical_resource'",
    );
    expect(Number(functions[0]!.n)).toBe(0);
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
