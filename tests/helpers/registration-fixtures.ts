// The registration bodies real MCP clients send (tests/fixtures/mcp-client-registrations.json), by the
// start of the client's description: what several people registering the same product look like.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/cli/standalone';

type Fixture = { client: string; registration_body: Record<string, unknown> };

const fixtures = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json'), 'utf8')) as Fixture[];

/** The registration body of the first fixture whose client description starts with `prefix`. */
export function registrationBody(prefix: string): Record<string, unknown> {
  const fixture = fixtures.find((candidate) => candidate.client.startsWith(prefix));
  if (!fixture) throw new Error(`no registration fixture for "${prefix}"`);
  return fixture.registration_body;
}
