// Starting Gatehouse: configuration errors stop it with a message naming the variable, the embedded
// database and its keys survive a restart, and cookies are Secure behind an https PUBLIC_URL.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLayout, PROJECT_ROOT } from '../../lib/cli/standalone';
import { readMigrations } from '../../lib/db/migrate';
import { runCli, runNode } from '../helpers/cli';
import { TEST_DIST_DIR } from '../helpers/paths';
import { signIn } from '../helpers/session';
import { startServer, TEST_DEMO_PASSWORD } from '../helpers/server';

const MIGRATIONS = readMigrations().length;

describe('starting Gatehouse', () => {
  it('stops with a message naming the variable when the configuration is invalid', async () => {
    const result = await runCli('lib/cli/start.ts', [], { PUBLIC_URL: 'ftp://example.com', DATA_DIR: tmpdir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PUBLIC_URL must be an http(s) origin');
  });

  it('requires AUTH_SECRET when DATABASE_URL is set', async () => {
    const result = await runCli('lib/cli/start.ts', [], { DATABASE_URL: 'postgresql://localhost/x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('AUTH_SECRET is required when DATABASE_URL is set');
  });

  it('keeps the embedded data, its generated secret and its signing keys across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-restart-'));
    try {
      const first = await startServer({ database: 'embedded', keepData: { dataDir } });
      const keysBefore = await (await fetch(`${first.url}/oauth/jwks`)).json();
      const { jar } = await signIn(first.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
      await first.stop();

      const second = await startServer({ database: 'embedded', keepData: { dataDir } });
      try {
        expect(await (await fetch(`${second.url}/oauth/jwks`)).json()).toEqual(keysBefore);
        expect(second.output()).toContain(`0 migration(s) applied, ${MIGRATIONS} already there`);
        expect(second.output()).not.toContain('demo data created');
        // Same AUTH_SECRET: the session cookie issued before the restart is still honoured.
        const home = await jar.fetch(`${second.url}/`);
        expect(home.status).toBe(200);
        expect(await home.text()).toContain('Olivia Owner');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('prints the URL and the demo sign-ins on first start', async () => {
    const server = await startServer({ database: 'embedded', env: { DEMO_PASSWORD: 'gatehouse-demo' } });
    try {
      expect(server.output()).toContain('demo data created');
      expect(server.output()).toContain(
        'demo sign-ins (password gatehouse-demo): owner@acme.test, member@acme.test, viewer@acme.test',
      );
      expect(server.output()).toContain(`ready at ${server.url}`);
    } finally {
      await server.stop();
    }
  });

  it('never creates the demo instance admin with the public default password on a server reachable from the network', async () => {
    const server = await startServer({ database: 'embedded', env: { PUBLIC_URL: 'https://gatehouse.example', DEMO_PASSWORD: 'gatehouse-demo' } });
    try {
      expect(server.output()).toContain('demo data not created. Refusing to seed demo people with the default password on a server reachable from the network');
      expect((await signIn(server.url, 'owner@acme.test', 'gatehouse-demo')).response.status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it('marks cookies Secure when PUBLIC_URL is https', async () => {
    const server = await startServer({
      database: 'embedded',
      env: { PUBLIC_URL: 'https://gatehouse.example', AUTH_SECRET: randomBytes(32).toString('hex') },
    });
    try {
      const response = await fetch(`${server.url}/api/auth/csrf`);
      const cookies = response.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);
      const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as { issuer: string };
      expect(metadata.issuer).toBe('https://gatehouse.example');
    } finally {
      await server.stop();
    }
  });

  it('serves from a copy of the standalone folder alone, as the Docker image runs it, and passes its health check', async () => {
    const app = mkdtempSync(join(tmpdir(), 'gatehouse-image-'));
    cpSync(join(buildLayout(TEST_DIST_DIR).distDir, 'standalone'), app, { recursive: true });
    try {
      const server = await startServer({ database: 'embedded', standaloneDir: app });
      try {
        expect(server.output()).toContain(`${MIGRATIONS} migration(s) applied`);
        expect((await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(200);
        // The HEALTHCHECK command of the Dockerfile, run as Docker would.
        const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
        const script = /CMD \["node", "-e", "(.+)"\]\n/.exec(dockerfile)?.[1];
        expect(script).toBeDefined();
        const check = await runNode('-e', [script!], { PORT: String(server.port) }, app);
        expect(check.code).toBe(0);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
