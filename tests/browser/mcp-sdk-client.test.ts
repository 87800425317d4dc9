// The official MCP SDK Client with StreamableHTTPClientTransport, from a cold start: 401, discovery,
// registration, consent in Chromium, tools, and a revocation the very next call notices.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser } from '../helpers/consent-browser';
import { MemoryClientProvider } from '../helpers/sdk-client';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

describe.runIf(HAS_CHROMIUM)('the MCP SDK Client over Streamable HTTP', () => {
  const running = serverAndBrowser();

  it('connects from a cold start, lists and calls tools, and is refused right after a revoke', async () => {
    const redirect = 'http://127.0.0.1:47832/oauth/callback';
    const provider = new MemoryClientProvider(redirect);
    const url = new URL(`${running.server.url}/mcp`);
    const connectClient = async () => {
      const client = new Client({ name: 'gatehouse-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      return client;
    };

    // Cold start: no token → 401 → the SDK discovers, registers and asks for authorization.
    await expect(connectClient()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toBeTruthy();
    const context = await running.browser.newContext();
    const callback = await approveInBrowser(context, provider.authorizationUrl!.toString(), redirect, {
      email: 'owner@acme.test',
      password: TEST_DEMO_PASSWORD,
    });
    await context.close();
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(callback.searchParams.get('code')!);

    const client = await connectClient();
    expect(client.getServerVersion()?.name).toBe('gatehouse');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('execute_tool');

    const whoami = await client.callTool({ name: 'whoami', arguments: {} });
    expect(whoami.isError).toBe(false);
    expect(whoami.structuredContent).toMatchObject({ person: { email: 'owner@acme.test' }, organization: { name: 'Acme' } });

    const wrapped = await client.callTool({ name: 'execute_tool', arguments: { name: 'list_connected_apps', arguments: {} } });
    expect(wrapped.isError).toBe(false);
    const apps = (wrapped.structuredContent as { apps: { grantId: string; client: { id: string } }[] }).apps;
    const mine = apps.find((app) => app.client.id === provider.information!.client_id)!;

    const revoked = await client.callTool({ name: 'revoke_connected_app', arguments: { grant_id: mine.grantId } });
    expect(revoked.isError).toBe(false);
    // The very next call is refused: the SDK sees a 401 and asks for authorization again.
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
    const direct = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(direct.status).toBe(401);
    expect(direct.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await client.close();
  }, 90_000);
});
