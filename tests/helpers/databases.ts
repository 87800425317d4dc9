// The databases the integration suite runs against: always the embedded one, and PostgreSQL when
// TEST_DATABASE_URL is set — each run in a database of its own, created here and dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type DatabaseKind = 'embedded' | 'postgres';

export const DATABASES: DatabaseKind[] = process.env.TEST_DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];

if (!process.env.TEST_DATABASE_URL) {
  console.log('TEST_DATABASE_URL is not set: integration tests run on the embedded database only.');
}

export type PostgresDatabase = { url: string; name: string; drop(): Promise<void> };

/** Creates a fresh, empty PostgreSQL database next to TEST_DATABASE_URL's. */
export async function createPostgresDatabase(): Promise<PostgresDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

export async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
