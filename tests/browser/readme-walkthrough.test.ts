// The README's curl walk-through, run as written: every shell block of the section, in order, against a
// fresh server, with the one step a person does in a browser done in Chromium. If the README and the
// product drift apart, this fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/cli/standalone';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser } from '../helpers/consent-browser';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const TOOLS = ['bash', 'curl', 'jq', 'openssl'];
const missing = TOOLS.filter((tool) => spawnSync('which', [tool]).status !== 0);
if (missing.length) console.log(`README walk-through skipped: ${missing.join(', ')} not installed.`);

function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Walk through the OAuth flow and /mcp with curl');
  expect(start).toBeGreaterThanOrEqual(0);
  // The section runs to the next top-level heading.
  const next = readme.indexOf('\n## ', start + 3);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe.runIf(HAS_CHROMIUM && missing.length === 0)('the README walk-through', () => {
  const running = serverAndBrowser();

  it('behaves as written, step by step', async () => {
    const blocks = walkthroughBlocks();
    expect(blocks.length).toBe(9);
    const run = (script: string) => execFileSync('bash', ['-c', `set -euo pipefail\n${script}`], { encoding: 'utf8', env: { ...process.env, G: running.server.url } });
    // Steps 1–3 (discover, register, build the authorization URL); `G` points at the test running.server.
    const upToAuthorize = blocks
      .slice(0, 3)
      .join('\n')
      .replace(/^G=.*$/m, '');
    const state = run(`${upToAuthorize}\necho "CLIENT_ID=$CLIENT_ID"\necho "VERIFIER=$VERIFIER"`);
    expect(state).toContain('"application_type": "native"');
    const authorizationUrl = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(state)?.[1];
    expect(authorizationUrl).toBeDefined();
    const clientId = /^CLIENT_ID=(.+)$/m.exec(state)![1]!;
    const verifier = /^VERIFIER=(.+)$/m.exec(state)![1]!;

    // The person's part, in a real browser.
    const context = await running.browser.newContext();
    const callback = await approveInBrowser(context, authorizationUrl!, 'http://127.0.0.1:8976/callback', {
      email: 'member@acme.test',
      password: TEST_DEMO_PASSWORD,
    });
    await context.close();
    expect(callback.searchParams.get('iss')).toBe(running.server.url);

    // Steps 4–7 with the code from the address bar.
    const rest = blocks
      .slice(3)
      .join('\n')
      .replace('CODE=paste-the-code-here', `CODE=${callback.searchParams.get('code')}`);
    const output = run(`CLIENT_ID=${clientId}\nVERIFIER=${verifier}\n${rest}`);
    expect(output).toMatch(/"access_token": "mcp_at_/);
    expect(output).toContain('"expires_in": 3600');
    expect(output).toContain('"scope": "mcp:read mcp:write"');
    expect(output).toMatch(/^www-authenticate: Bearer resource_metadata=/im);
    expect(output).toContain('{"name":"gatehouse","title":"Gatehouse"');
    expect(output).toContain('["whoami","list_connected_apps","revoke_connected_app","list_members","read_audit_log","execute_tool"]');
    expect(output).toContain('"email":"member@acme.test"');
    expect(output).toMatch(/role in Acme is "member".*will not help/);
    expect(output).toContain('{"supportedVersions":["2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"resultType":"complete","ttlMs":60000}');
    expect(output).toMatch(/^200\n401$/m); // revocation, then the next /mcp call
    expect(output.trim().endsWith('"invalid_grant"')).toBe(true);
  }, 60_000);
});
