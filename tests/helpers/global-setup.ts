// Builds the app once per test run, into its own folder (.next-test) so that a running `npm start` is
// never disturbed. GATEHOUSE_TEST_REUSE_BUILD=1 reuses a test build that is newer than every source
// file (quick local loops); CI always builds.
import { buildApp, buildIsStale } from '../../lib/cli/standalone';
import { TEST_DIST_DIR } from './paths';

export default function setup(): void {
  if (process.env.GATEHOUSE_TEST_REUSE_BUILD === '1' && !buildIsStale(TEST_DIST_DIR)) return;
  const started = Date.now();
  buildApp(TEST_DIST_DIR);
  console.log(`test build ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
