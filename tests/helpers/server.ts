// Boots the real, built Gatehouse (the standalone server, exactly as `npm start` runs it) on a free
// port, with a fresh database: an embedded one in a temporary folder, or a new PostgreSQL database.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLayout, PROJECT_ROOT, serverEnvironment, serverNodeFlags } from '../../lib/cli/standalone';
import { createPostgresDatabase, type DatabaseKind, type PostgresDatabase } from './databases';
import { runNode } from './cli';
import { TEST_DIST_DIR } from './paths';

export const TEST_DEMO_PASSWORD = 'test-demo-password-1';

export type RunningServer = {
  url: string;
  port: number;
  /** The server's process id (its memory is in /proc/<pid>/status). */
  pid: number;
  dataDir: string;
  database: DatabaseKind;
  postgres: PostgresDatabase | null;
  /** Everything the server's process was started with (to run a CLI against the same database). */
  env: Record<string, string>;
  output(): string;
  /** Stops the process only, keeping its data, port and environment for `startServer(server.restartOptions)`. */
  halt(): Promise<void>;
  /** Sends `signal` to the process (SIGKILL: a crash) and resolves with how it exited; data and port are kept. */
  signal(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  restartOptions: StartOptions;
  /** Closes the pipes the server writes its log to, as when the process reading them dies; resolves with how it then exits. */
  closeOutput(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
};

export type StartOptions = {
  database: DatabaseKind;
  env?: Record<string, string>;
  keepData?: { dataDir: string };
  /** Run server.js from this copy of the standalone folder, with nothing from the project (as in Docker). */
  standaloneDir?: string;
  /**
   * PostgreSQL is never seeded by the server itself; tests get the demo data unless they say otherwise.
   * Default: seeded when startServer created the database, not when the test passed one in `postgres`.
   */
  seedPostgres?: boolean;
  /** Reuse this port (and PostgreSQL database) — see restart(). */
  port?: number;
  postgres?: PostgresDatabase;
};

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.keepData?.dataDir ?? mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const postgres = options.postgres ?? (options.database === 'postgres' ? await createPostgresDatabase() : null);
  const base = serverEnvironment({ port, host: '127.0.0.1', dataDir });
  if (options.standaloneDir) delete base.GATEHOUSE_MIGRATIONS_DIR;
  const env: Record<string, string> = {
    ...base,
    PUBLIC_URL: `http://localhost:${port}`,
    DEMO_PASSWORD: TEST_DEMO_PASSWORD,
    ...(postgres ? { DATABASE_URL: postgres.url, AUTH_SECRET: randomBytes(32).toString('base64url') } : {}),
    ...options.env,
  };
  if (postgres && (options.seedPostgres ?? !options.postgres)) await seed(env);
  const serverPath = options.standaloneDir ? join(options.standaloneDir, 'server.js') : buildLayout(TEST_DIST_DIR).serverPath;
  const child = spawn(process.execPath, [...serverNodeFlags(), serverPath], {
    cwd: options.standaloneDir ?? PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));

  const url = `http://localhost:${port}`;
  await waitUntilReady(url, child, () => output);
  return {
    url,
    port,
    pid: child.pid!,
    dataDir,
    database: options.database,
    postgres,
    env,
    output: () => output,
    halt: () => stopProcess(child),
    signal: (signal) => signalProcess(child, signal),
    closeOutput: () => {
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.stdout.destroy();
      child.stderr.destroy();
      return exited;
    },
    restartOptions: { ...options, port, keepData: { dataDir }, postgres: postgres ?? undefined, env, seedPostgres: false },
    async stop() {
      await stopProcess(child);
      if (postgres && !options.postgres) await postgres.drop(); // only the database this server created
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the bundled seed tool, as an operator would with `npm run db:seed`. */
async function seed(env: Record<string, string>): Promise<void> {
  const standalone = join(buildLayout(TEST_DIST_DIR).distDir, 'standalone');
  const result = await runNode(join(standalone, 'cli', 'seed.mjs'), [], env, standalone);
  if (result.code !== 0) throw new Error(`seeding failed:\n${result.stdout}${result.stderr}`);
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not become ready within 60 s:\n${output()}`);
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function signalProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => {
    child.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }));
    child.kill(signal);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
