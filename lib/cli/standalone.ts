// Building the app and locating its standalone server: shared by `npm start` and the test suite, so
// the tests boot exactly what users (and the Docker image) run.
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

export type BuildLayout = { distDir: string; serverPath: string; buildId: string };

export function buildLayout(distDir = '.next'): BuildLayout {
  const absolute = join(PROJECT_ROOT, distDir);
  return {
    distDir: absolute,
    serverPath: join(absolute, 'standalone', 'server.js'),
    buildId: join(absolute, 'BUILD_ID'),
  };
}

export function hasBuild(distDir = '.next'): boolean {
  const layout = buildLayout(distDir);
  return existsSync(layout.buildId) && existsSync(layout.serverPath);
}

/** What the build is made from: a change to any of these after the build makes it stale. */
const BUILD_INPUTS = ['app', 'lib', 'prisma', 'public', 'instrumentation.ts', 'proxy.ts', 'next.config.mjs', 'tsconfig.app.json', 'package-lock.json'];

/** True when some source file is newer than the build (e.g. after `git pull`), or there is no build. */
export function buildIsStale(distDir = '.next'): boolean {
  if (!hasBuild(distDir)) return true;
  const builtAt = statSync(buildLayout(distDir).buildId).mtimeMs;
  return BUILD_INPUTS.some((input) => newestChange(join(PROJECT_ROOT, input)) > builtAt);
}

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'generated' || entry === 'node_modules') continue; // outputs, not inputs
    newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

/** Generates the Prisma client, runs `next build`, and completes the standalone folder. Throws on failure. */
export function buildApp(distDir = '.next', extraEnv: Record<string, string> = {}): void {
  const env = { ...process.env, ...extraEnv, GATEHOUSE_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: '1' };
  run(process.execPath, [join(PROJECT_ROOT, 'lib/cli/prisma-generate.mjs')], env);
  run(process.execPath, [join(PROJECT_ROOT, 'node_modules/next/dist/bin/next'), 'build'], env);
  // `next build` leaves static assets and public/ for the deployer to copy beside server.js.
  const layout = buildLayout(distDir);
  const standalone = join(layout.distDir, 'standalone');
  rmSync(join(standalone, distDir, 'static'), { recursive: true, force: true });
  cpSync(join(layout.distDir, 'static'), join(standalone, distDir, 'static'), { recursive: true });
  if (existsSync(join(PROJECT_ROOT, 'public'))) {
    cpSync(join(PROJECT_ROOT, 'public'), join(standalone, 'public'), { recursive: true });
  }
  bundleCommandLineTools(join(standalone, 'cli'));
}

/**
 * The command-line tools as plain JavaScript beside server.js (`node cli/create-owner.mjs …`), so an
 * installation that ships only the standalone folder — the Docker image — can still migrate, seed and
 * create its first owner. Packages the server already carries in its node_modules stay external.
 */
function bundleCommandLineTools(outdir: string): void {
  rmSync(outdir, { recursive: true, force: true });
  buildSync({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: {
      'create-owner': 'lib/cli/create-owner.ts',
      seed: 'prisma/seed.ts',
      migrate: 'lib/cli/migrate.ts',
      'rotate-keys': 'lib/cli/rotate-keys.ts',
      'rotate-secret': 'lib/cli/rotate-secret.ts',
      connectors: 'lib/cli/connectors.ts',
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['@electric-sql/pglite', '@prisma/client', 'pg', 'bcryptjs'],
    // Some bundled CommonJS code calls require(): give the ES module one.
    banner: { js: "import { createRequire as gatehouseRequire } from 'node:module'; const require = gatehouseRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): void {
  const result = spawnSync(command, args, { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} failed (exit ${result.status})`);
}

/**
 * Node flags for the server process. The old generation is capped at 256 MB: the live heap is about
 * 100 MB, but every request leaves Next.js's per-request objects (held past young-generation collections
 * by weak references) to the old generation, and V8 let it grow to 300+ MB between full collections,
 * which put the process above 400 MB of memory under load. An operator's own --max-old-space-size in
 * NODE_OPTIONS wins.
 */
export function serverNodeFlags(nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return nodeOptions.includes('--max-old-space-size') ? [] : ['--max-old-space-size=256'];
}

/**
 * The environment for the standalone server. server.js changes into its own folder, so every path the
 * server reads is made absolute here; HOSTNAME is what server.js listens on.
 */
export function serverEnvironment(config: { port: number; host: string; dataDir: string }): Record<string, string> {
  return {
    PORT: String(config.port),
    HOSTNAME: config.host,
    DATA_DIR: config.dataDir,
    GATEHOUSE_MIGRATIONS_DIR: join(PROJECT_ROOT, 'prisma', 'migrations'),
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    // Gatehouse stops itself on SIGTERM/SIGINT after writing what it buffers (lib/server/shutdown.ts).
    NEXT_MANUAL_SIG_HANDLE: '1',
  };
}
