// Builds the app once per test run, into its own folder (.next-test) so that a running `npm start` is
// never disturbed. GATEHOUSE_TEST_REUSE_BUILD=1 reuses an existing test build (for quick local loops;
// CI always builds).
import { buildApp, hasBuild } from '../../lib/cli/standalone';
import { TEST_DIST_DIR } from './paths';

export default function setup(): void {
  if (process.env.GATEHOUSE_TEST_REUSE_BUILD === '1' && hasBuild(TEST_DIST_DIR)) return;
  const started = Date.now();
  buildApp(TEST_DIST_DIR);
  console.log(`test build ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
