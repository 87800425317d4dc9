// How a forwarded connector call behaves under time pressure (docs/connectors.md, The forwarded call): a slow
// upstream slows only its own callers and holds no database connection while it is waited on — more slow
// calls than the PostgreSQL pool has connections, while other calls keep answering — and a caller that goes
// away cancels its upstream call (notifications/cancelled), logged as aborted. The connector outcomes are a
// filter of the org's call log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { parseJsonLines } from '../helpers/csv';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, openConsent, pkce, register, type Tokens } from '../helpers/oauth';
import { type RunningServer, startServer, TEST_DEMO_PASSWORD } from '../helpers/server';
import { signIn } from '../helpers/session';
import { echoTool, type RunningUpstream, slowTool, startUpstream } from '../helpers/upstream-mcp';

const CLI = 'lib/cli/connectors.ts';
/** The PostgreSQL pool's size (lib/db/client.ts): more slow calls than this are in flight at once. */
const POOL_CONNECTIONS = 10;

describe('forwarded connector calls on PostgreSQL', () => {
  let server: RunningServer;
  let slow: RunningUpstream;
  let fast: RunningUpstream;
  let tokens: Tokens;

  beforeAll(async () => {
    server = await startServer({ database: 'postgres', env: { CONNECTOR_REFRESH_SECONDS: '86400', MCP_RATE_LIMIT_PER_MINUTE: '1000' } });
    [slow, fast] = await Promise.all([
      startUpstream({ stateful: true, tools: [slowTool('wait', 8_000), slowTool('linger', 20_000)] }),
      startUpstream({ stateful: false, tools: [echoTool('echo', { annotations: { readOnlyHint: true } })] }),
    ]);
    for (const [slug, upstream] of [
      ['slow', slow],
      ['fast', fast],
    ] as const) {
      const added = await runCli(CLI, ['add', slug, upstream.url, '--orgs', 'acme', '--timeout-seconds', '30'], server.env);
      expect(added.code, added.stderr).toBe(0);
    }
    const client = await register(server.url, { client_name: 'Forwarding Test', redirect_uris: ['https://forwarding.example/cb'] });
    ({ tokens } = await connect(server.url, client, { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD }, { scopes: ['mcp:read', 'mcp:write'] }));
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await slow?.stop();
    await fast?.stop();
  });

  const call = (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(rpc('tools/call', { name, arguments: args })),
      signal,
    });

  it('shows the connector tools on the consent screen of an org that switched them on, and not once it switched them off', async () => {
    const client = await register(server.url, { client_name: 'Consent Look', redirect_uris: ['https://consent-look.example/cb'] });
    const consent = async () => {
      const browser = new Browser(server.url);
      await browser.signIn('member@acme.test', TEST_DEMO_PASSWORD);
      return (await openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }))).html;
    };
    const before = await consent();
    expect(before).toContain('whoami');
    expect(before).toContain('slow__wait');
    expect(before).toContain('fast__echo');
    const disabled = await runCli(CLI, ['disable', 'slow', '--org', 'acme'], server.env);
    expect(disabled.code, disabled.stderr).toBe(0);
    try {
      const after = await consent();
      expect(after).toContain('fast__echo');
      expect(after).not.toContain('slow__wait');
    } finally {
      expect((await runCli(CLI, ['enable', 'slow', '--org', 'acme'], server.env)).code).toBe(0);
    }
  }, 90_000);

  it('slows only its own callers, and holds no database connection while the upstream is waited on', async () => {
    const waiting = Array.from({ length: POOL_CONNECTIONS + 4 }, () => call('slow__wait').then(async (response) => ({ status: response.status, body: await response.json() })));
    // Every slow call reaches the upstream (which holds each for 8 s)...
    await expect.poll(() => slow.calls('wait').length, { timeout: 5_000 }).toBe(POOL_CONNECTIONS + 4);

    const timed = async (what: string, run: () => Promise<Response>) => {
      const started = Date.now();
      const response = await run();
      const elapsed = Date.now() - started;
      // ...and meanwhile other calls answer without waiting for them.
      expect(elapsed, `${what} took ${elapsed} ms while the slow calls were waiting`).toBeLessThan(2_500);
      return response;
    };
    expect((await timed('/readyz', () => fetch(`${server.url}/readyz`))).status).toBe(200);
    const whoami = await timed('whoami', () => call('whoami'));
    expect((await whoami.json()).result.isError).toBe(false);
    const echoed = await timed('fast__echo', () => call('fast__echo', { text: 'meanwhile' }));
    expect((await echoed.json()).result.content[0].text).toBe('{"text":"meanwhile"}');

    const answers = await Promise.all(waiting);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.result).toEqual({ content: [{ type: 'text', text: 'finally' }], isError: false });
    }
  }, 60_000);

  it('cancels the upstream call when the caller goes away, and logs the call as aborted', async () => {
    const before = slow.log.length;
    const controller = new AbortController();
    const pending = call('slow__linger', {}, controller.signal).catch((error: Error) => error);
    await expect.poll(() => slow.calls('linger').length, { timeout: 5_000 }).toBe(1);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    // The SDK client tells the upstream (MCP 2025-11-25, Utilities › Cancellation), well before the 20 s the tool takes.
    await expect.poll(() => slow.log.slice(before).some((entry) => entry.rpcMethods.includes('notifications/cancelled')), { timeout: 5_000 }).toBe(true);

    const { jar } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    await expect
      .poll(
        async () => {
          const response = await jar.fetch(`${server.url}/admin/acme/calls/export?format=jsonl&tool=slow__linger`);
          return parseJsonLines(await response.text()).map((row) => [row.outcome, row.connector]);
        },
        { timeout: 5_000 },
      )
      .toEqual([['aborted', 'slow']]);
  }, 60_000);

  it('lists connector failures under their own outcome filter in the call log', async () => {
    await fast.stop();
    const reply = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'fast__echo', arguments: {} }));
    expect(reply.status).toBe(200);
    expect(reply.body!.result.isError).toBe(true);
    expect(reply.body!.result.content[0].text).toMatch(/the connector "fast" \(fast\) failed: .*could not be reached/);

    const { jar } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    await expect
      .poll(
        async () => {
          const response = await jar.fetch(`${server.url}/admin/acme/calls/export?format=jsonl&outcome=connector`);
          return parseJsonLines(await response.text()).map((row) => [row.toolName, row.outcome, row.outcomeCategory]);
        },
        { timeout: 5_000 },
      )
      .toEqual([['fast__echo', 'upstream_error', 'connector']]);
    // The aborted call is not a connector failure; the echo that worked is not either.
    const ok = await jar.fetch(`${server.url}/admin/acme/calls/export?format=jsonl&tool=fast__echo&outcome=ok`);
    const rows = parseJsonLines(await ok.text());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ connector: 'fast', outcome: 'ok' });
    expect(typeof rows[0]!.upstreamLatencyMs).toBe('number');
  }, 60_000);
});
