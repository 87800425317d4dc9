// The production bootstrap: `npm run create-owner` makes the first instance admin, who can then sign in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLayout } from '../../lib/cli/standalone';
import { runCli, runNode } from '../helpers/cli';
import { TEST_DIST_DIR } from '../helpers/paths';
import { signIn } from '../helpers/session';
import { startServer } from '../helpers/server';

const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-owner-'));
const env = { DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run create-owner', () => {
  it('explains its usage when an argument is missing', async () => {
    const result = await runCli('lib/cli/create-owner.ts', ['--email', 'root@example.com'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: npm run create-owner -- --email');
  });

  it('refuses a short password', async () => {
    const result = await runCli('lib/cli/create-owner.ts', ['--email', 'root@example.com', '--org', 'Example'], env, 'short\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The password must be at least 12 characters');
  });

  it('creates an instance admin who owns a new organization, and refuses the same email twice', async () => {
    const args = ['--email', 'Root@Example.com', '--org', 'Example Co', '--name', 'Rita Root'];
    const created = await runCli('lib/cli/create-owner.ts', args, env, 'a long enough password\n');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created root@example.com, instance admin and owner of Example Co');

    const again = await runCli('lib/cli/create-owner.ts', args, env, 'a long enough password\n');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('root@example.com already has an account');
  });

  it('leaves a database where the server seeds no demo data and the owner signs in', async () => {
    const server = await startServer({ database: 'embedded', keepData: { dataDir } });
    try {
      expect(server.output()).not.toContain('demo data created');
      const owner = await signIn(server.url, 'root@example.com', 'a long enough password');
      expect(owner.response.status).toBe(200);
      const home = await (await owner.jar.fetch(`${server.url}/`)).text();
      expect(home).toContain('Rita Root');
      expect(home).toContain('Instance admin');
      expect(home).toMatch(/Example Co.*Owner/s);
      expect((await signIn(server.url, 'owner@acme.test', 'gatehouse-demo')).response.status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it('also runs from the standalone build alone, as in the Docker image', async () => {
    const standalone = join(buildLayout(TEST_DIST_DIR).distDir, 'standalone');
    const otherData = mkdtempSync(join(tmpdir(), 'gatehouse-owner-standalone-'));
    try {
      const result = await runNode(join(standalone, 'cli', 'create-owner.mjs'), ['--email', 'ops@example.com', '--org', 'Ops'], { DATA_DIR: otherData }, standalone, 'another long password\n');
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('Created ops@example.com, instance admin and owner of Ops');
    } finally {
      rmSync(otherData, { recursive: true, force: true });
    }
  });
});
