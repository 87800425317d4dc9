#!/usr/bin/env node
// Runs `prisma generate` on machines that cannot download Prisma's schema engine. Generating the client
// never uses that engine, but the CLI insists that a file exists where it expects one: when no engine is
// installed, point PRISMA_SCHEMA_ENGINE_BINARY at an existing placeholder so generation proceeds offline.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };

if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const enginesDir = dirname(require.resolve('@prisma/engines/package.json'));
  const downloaded = readdirSync(enginesDir).find((name) => name.startsWith('schema-engine'));
  env.PRISMA_SCHEMA_ENGINE_BINARY = downloaded ? join(enginesDir, downloaded) : join(enginesDir, 'package.json'); // any existing file: generate never executes it
}

const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
});
if (result.status !== 0 || !existsSync('lib/generated/prisma/client.ts')) {
  console.error('prisma generate failed: see the output above.');
  process.exit(result.status || 1);
}
