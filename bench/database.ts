// A PostgreSQL database of its own for one benchmark or soak run: created beside the one `adminUrl`
// names, migrated and seeded with the demo data (password `password`) as `npm start` would, and dropped
// afterwards.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PROJECT_ROOT } from '@/lib/cli/standalone';
import { withAdmin } from '../tests/helpers/databases';

export type PreparedDatabase = { url: string | null; drop(): Promise<void> };

export const RUN_AUTH_SECRET = 'bench-auth-secret-bench-auth-secret-bench';

export async function createSeededDatabase(adminUrl: string, password: string): Promise<PreparedDatabase & { url: string }> {
  const name = `gatehouse_bench_${randomBytes(4).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const seeded = spawnSync(process.execPath, ['--import', 'tsx', 'prisma/seed.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: url.toString(), DEMO_PASSWORD: password, AUTH_SECRET: RUN_AUTH_SECRET },
    encoding: 'utf8',
  });
  if (seeded.status !== 0) throw new Error(`seeding PostgreSQL failed:\n${seeded.stderr}`);
  return { url: url.toString(), drop: async () => void (await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))) };
}
