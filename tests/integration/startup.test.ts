// Starting Gatehouse: configuration errors stop it with a message naming the variable, the embedded
// database and its keys survive a restart, and cookies are Secure behind an https PUBLIC_URL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLayout, PROJECT_ROOT } from '../../lib/cli/standalone';
import { readMigrations } from '../../lib/db/migrate';
import { runCli, runNode } from '../helpers/cli';
import { TEST_DIST_DIR } from '../helpers/paths';
import { signIn } from '../helpers/session';
import { freePort, startServer, TEST_DEMO_PASSWORD } from '../helpers/server';

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
      expect(server.output()).toContain('demo sign-ins (password gatehouse-demo): owner@acme.test, member@acme.test, viewer@acme.test');
      expect(server.output()).toContain(`ready at ${server.url}`);
      // The /mcp URL to give an MCP client, and why cloud clients cannot use a localhost one.
      expect(server.output()).toContain(`gatehouse: connect MCP clients to ${server.url}/mcp`);
      expect(server.output()).toMatch(/is not an https:\/\/ address, so Claude and ChatGPT, .* cannot reach it\. Claude Code, Cursor and VS Code/);
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

  // When the server process dies (out of memory, a crash, the kernel's OOM killer), npm start must not
  // leave Gatehouse down without a word: it logs the crash and starts the server again; SIGTERM still
  // stops everything.
  it('npm start restarts its server when the process dies, logs it, and still stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-supervised-'));
    const port = await freePort();
    const url = `http://localhost:${port}`;
    // As package.json's start script runs it: one process that receives the signal itself.
    const start = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/start.ts'], {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'production',
        GATEHOUSE_DIST_DIR: TEST_DIST_DIR,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        PUBLIC_URL: url,
        DEMO_PASSWORD: TEST_DEMO_PASSWORD,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    start.stdout.on('data', (chunk: Buffer) => (output += chunk));
    start.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => start.on('exit', (code) => resolve(code)));
    try {
      await until(
        async () => (await healthz(url)) === 200,
        90_000,
        () => output,
      );
      const first = serverProcesses(start.pid!);
      expect(first, output).toHaveLength(1);
      process.kill(first[0]!, 'SIGKILL');

      await until(
        async () => output.includes('the server stopped unexpectedly (signal SIGKILL)'),
        10_000,
        () => output,
      );
      await until(
        async () => (await healthz(url)) === 200,
        60_000,
        () => output,
      );
      const second = serverProcesses(start.pid!);
      expect(second).toHaveLength(1);
      expect(second[0]).not.toBe(first[0]);
      const { jar } = await signIn(url, 'owner@acme.test', TEST_DEMO_PASSWORD);
      expect(await (await jar.fetch(`${url}/`)).text()).toContain('Olivia Owner');

      start.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(serverProcesses(start.pid!)).toEqual([]);
      expect(() => process.kill(second[0]!, 0)).toThrow();
      expect(output.match(/the server stopped unexpectedly/g)).toHaveLength(1);
    } finally {
      for (const pid of descendants(start.pid!).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

async function healthz(url: string): Promise<number | null> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return null;
  }
}

async function until(condition: () => Promise<boolean>, ms: number, output: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `root` and every process under it (npm start runs under tsx, which runs node), parents first. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (found.has(parent) && !found.has(pid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found].filter((pid) => pid === root || parents.has(pid));
}

/** The standalone servers under `root`: Next.js renames its process `next-server (v…)`. */
function serverProcesses(root: number): number[] {
  return descendants(root).filter((pid) => {
    try {
      return /^next-server|standalone\/server\.js/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}
