// The migration runner: Prisma-compatible bookkeeping, idempotence, refusal of edited or unknown
// migrations, rollback of a failing one, and concurrent starts on PostgreSQL.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrationsDirectory, readMigrations, type Migration } from '@/lib/db/migrate';
import { redirectHostname } from '@/lib/oauth/clients';
import { DATABASES } from '../helpers/databases';
import { openTestDatabase, type TestDatabase } from '../helpers/prisma';

const open: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((database) => database.close()));
});

async function fresh(kind: (typeof DATABASES)[number]) {
  const database = await openTestDatabase(kind, { migrated: false });
  open.push(database);
  const config = kind === 'embedded' ? ({ kind, dataDir: '' } as const) : ({ kind, url: database.url as string } as const);
  return { database, run: (migrations?: Migration[]) => migrate(config, database.pglite, migrations) };
}

async function rows(database: TestDatabase) {
  return database.prisma.$queryRawUnsafe<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }[]>(
    'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
  );
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
    const edited = readMigrations().map((migration, index) => (index === 0 ? { ...migration, checksum: 'f'.repeat(64) } : migration));
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
    const tables = await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'half_done'`);
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
      (await database.prisma.$queryRawUnsafe<{ model: string; id: string; payload: Record<string, any> }[]>('SELECT model, id, payload FROM "oidc_models"')).map((row) => [
        `${row.model}:${row.id}`,
        row.payload,
      ]),
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
    const functions = await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>("SELECT count(*) AS n FROM pg_proc WHERE proname = 'gatehouse_canonical_resource'");
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

describe.each(DATABASES)('client records migrated on the %s database', (kind) => {
  const name = '20261201000001_client_records_follow_provider';

  it("gives every client row the provider's current name and redirect host, and neutralises invisible characters in names", async () => {
    const { database, run } = await fresh(kind);
    await run(readMigrations().filter((migration) => migration.name < name));
    const client = async (clientId: string, row: { name: string | null; hostname: string | null; registration?: string }, payload?: Record<string, unknown>) => {
      await database.prisma.$executeRawUnsafe(
        `INSERT INTO "clients" ("client_id", "registration", "name", "hostname") VALUES ($1, $2::"client_registration", $3, $4)`,
        clientId,
        row.registration ?? 'dynamic',
        row.name,
        row.hostname,
      );
      if (payload) {
        await database.prisma.$executeRawUnsafe(
          'INSERT INTO "oidc_models" ("model", "id", "payload") VALUES ($1, $2, $3::jsonb)',
          'Client',
          clientId,
          JSON.stringify({ client_id: clientId, ...payload }),
        );
      }
    };
    // Renamed and moved by an RFC 7592 update before updates reached Gatehouse's own row.
    await client('stale', { name: 'Trusted Notes', hostname: 'notes.example' }, { client_name: 'Evil Exfil', redirect_uris: ['https://evil.test/cb'] });
    await client('unchanged', { name: 'Notes', hostname: 'notes.example' }, { client_name: 'Notes', redirect_uris: ['https://notes.example/cb'] });
    await client('unnamed', { name: 'Old Name', hostname: 'notes.example' }, { redirect_uris: ['https://notes.example/cb'] });
    await client('spoof', { name: 'Trusted\u202Eeton', hostname: 'spoof.example' }, { client_name: 'Trusted\u202Eeton', redirect_uris: ['https://spoof.example/cb'] });
    await client('zero-width', { name: 'x', hostname: 'x' }, { client_name: 'Tru\u200Bsted\u2066 App\u0007', redirect_uris: ['https://zw.example/cb'] });
    // A metadata-document client has no stored metadata: only its name is neutralised.
    await client('https://docs.example/app.json', { name: 'Doc\u202EApp', hostname: 'docs.example', registration: 'metadata_document' });
    // The host is the first redirect URI's that has one, as the application computes it.
    await client('second-host', { name: 'N', hostname: 'old.example' }, { client_name: 'N', redirect_uris: ['com.example.app:/cb', 'https://second.example/cb'] });
    const hosts = [
      'https://Upper.Example/cb',
      'http://127.0.0.1:8080/cb',
      'http://[::1]:3000/cb',
      'http://localhost/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.app://callback',
      'https://trailing.example./cb',
      'https://ports.example:8443/cb?x=1',
      'https:no-slashes.example/cb',
      'https://10.0.0.1/cb',
      'cursor://1.2/x',
      'https://empty-port.example:/cb',
      'com.example.app:/cb',
    ];
    for (const [index, uri] of hosts.entries()) {
      await client(`host-${index}`, { name: 'H', hostname: 'stale.example' }, { client_name: 'H', redirect_uris: [uri] });
    }
    // Spellings whose host only a URL parser can read exactly: left as they were rather than guessed.
    const unreadable = ['https://bücher.example/cb', 'https://xn--bcher-kva.example/cb', 'http://0x7f.1/cb', 'https://a%41.example/cb', 'https://user@at.example/cb', 'http://[0:0:0:0:0:0:0:1]/cb'];
    for (const [index, uri] of unreadable.entries()) {
      await client(`unreadable-${index}`, { name: 'U', hostname: 'stale.example' }, { client_name: 'U', redirect_uris: [uri] });
    }
    await run();

    const rows = new Map(
      (await database.prisma.$queryRawUnsafe<{ client_id: string; name: string | null; hostname: string | null }[]>('SELECT client_id, name, hostname FROM "clients"')).map((row) => [
        row.client_id,
        { name: row.name, hostname: row.hostname },
      ]),
    );
    const names = new Map(
      (await database.prisma.$queryRawUnsafe<{ id: string; name: string | null }[]>(`SELECT id, payload->>'client_name' AS name FROM "oidc_models" WHERE model = 'Client'`)).map((row) => [
        row.id,
        row.name,
      ]),
    );
    expect(rows.get('stale')).toEqual({ name: 'Evil Exfil', hostname: 'evil.test' });
    expect(rows.get('unchanged')).toEqual({ name: 'Notes', hostname: 'notes.example' });
    expect(rows.get('unnamed')).toEqual({ name: null, hostname: 'notes.example' });
    expect(rows.get('spoof')).toEqual({ name: 'Trusted\uFFFDeton', hostname: 'spoof.example' });
    expect(names.get('spoof')).toBe('Trusted\uFFFDeton');
    expect(rows.get('zero-width')).toEqual({ name: 'Tru\uFFFDsted\uFFFD App\uFFFD', hostname: 'zw.example' });
    expect(names.get('zero-width')).toBe('Tru\uFFFDsted\uFFFD App\uFFFD');
    expect(rows.get('https://docs.example/app.json')).toEqual({ name: 'Doc\uFFFDApp', hostname: 'docs.example' });
    expect(rows.get('second-host')).toEqual({ name: 'N', hostname: 'second.example' });
    for (const [index, uri] of hosts.entries()) {
      expect(rows.get(`host-${index}`)!.hostname, uri).toBe(redirectHostname([uri]));
    }
    for (const [index, uri] of unreadable.entries()) {
      expect(rows.get(`unreadable-${index}`)!.hostname, uri).toBe('stale.example');
    }
    const functions = await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>("SELECT count(*) AS n FROM pg_proc WHERE proname LIKE 'gatehouse_client%'");
    expect(Number(functions[0]!.n)).toBe(0);
  });
});
