// `npm start`: check the configuration, build the app if there is no build yet (or the sources changed
// since), then run the standalone server. The server itself migrates, seeds the embedded database and
// prints how to sign in (lib/server/startup.ts).
import { spawn } from 'node:child_process';
import { ConfigError, parseEnv } from '@/lib/env';
import { buildApp, buildIsStale, buildLayout, hasBuild, PROJECT_ROOT, serverEnvironment, serverNodeFlags } from './standalone';

function main(): void {
  let config;
  try {
    config = parseEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`gatehouse: cannot start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  if (buildIsStale()) {
    console.log(
      hasBuild()
        ? 'gatehouse: the sources changed since the last build, rebuilding…'
        : 'gatehouse: no build yet, building (about a minute)…',
    );
    buildApp();
  }
  const child = spawn(process.execPath, [...serverNodeFlags(), buildLayout().serverPath], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...serverEnvironment(config) },
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main();
