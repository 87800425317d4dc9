// The official MCP TypeScript SDK client against Gatehouse, end to end: it discovers, registers, sends a
// person to the consent screen (in Chromium), exchanges the code, refreshes — and its old refresh token
// is refused after the 10 s replay window.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser } from '../helpers/consent-browser';
import { MemoryClientProvider } from '../helpers/sdk-client';
import { tokenRequest } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

describe.runIf(HAS_CHROMIUM)('the MCP SDK client', () => {
  const running = serverAndBrowser();

  it('discovers, registers, gets consent in a browser, exchanges, refreshes; the old refresh token dies after 10 s', async () => {
    const redirect = 'http://127.0.0.1:47831/oauth/callback';
    const provider = new MemoryClientProvider(redirect);
    const serverUrl = `${running.server.url}/mcp`;

    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.information?.client_id).toBeTruthy();
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(running.server.url);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl);

    const context = await running.browser.newContext();
    const callback = await approveInBrowser(context, authorizationUrl.toString(), redirect, {
      email: 'owner@acme.test',
      password: TEST_DEMO_PASSWORD,
    });
    await context.close();
    expect(callback.searchParams.get('iss')).toBe(running.server.url);
    const code = callback.searchParams.get('code')!;

    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const first = provider.saved!;
    expect(first.access_token).toMatch(/^mcp_at_/);
    expect(first.expires_in).toBe(3600);
    expect(first.refresh_token).toBeTruthy();

    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED'); // refreshes
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);

    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const stale = await tokenRequest(running.server.url, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(stale.response.status).toBe(400);
    expect(stale.body.error).toBe('invalid_grant');
  }, 90_000);
});
