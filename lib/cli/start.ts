// `npm start`: check the configuration, build the app if there is no build yet (or the sources changed
// since), then run the standalone server, and start it again if it dies (lib/cli/supervise.ts). The server
// itself migrates, seeds the embedded database and prints how to sign in (lib/server/startup.ts).
import { ConfigError, parseEnv } from '@/lib/env';
import { buildApp, buildIsStale, buildLayout, hasBuild, PROJECT_ROOT, serverEnvironment, serverNodeFlags } from './standalone';
import { superviseServer } from './supervise';

/** The build folder: `.next`, or the one next.config.mjs was told to build into. */
const DIST_DIR = process.env.GATEHOUSE_DIST_DIR || '.next';

function main(): void {
  let config: ReturnType<typeof parseEnv>;
  try {
    config = parseEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`gatehouse: cannot start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  if (buildIsStale(DIST_DIR)) {
    console.log(hasBuild(DIST_DIR) ? 'gatehouse: the sources changed since the last build, rebuilding…' : 'gatehouse: no build yet, building (about a minute)…');
    buildApp(DIST_DIR);
  }
  const server = superviseServer(process.execPath, [...serverNodeFlags(), buildLayout(DIST_DIR).serverPath], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...serverEnvironment(config) },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => server.stop(signal));
  }
  void server.done.then((code) => process.exit(code));
}

main();
