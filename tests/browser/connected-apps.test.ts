// A person removes an app they approved, in two clicks, and the app's very next /mcp call is refused.
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('Connected apps', () => {
  const running = serverAndBrowser();

  it('lists the apps a person approved and revokes one after confirmation; its next call gets 401', async () => {
    const { url } = running.server;
    const kept = await connect(url, await register(url, { client_name: 'Kept App', redirect_uris: ['https://kept.example/cb'] }), member);
    const doomed = await connect(url, await register(url, { client_name: 'Doomed App', redirect_uris: ['https://doomed.example/cb'] }), member, { scopes: ['mcp:read'] });
    expect((await postMcp(url, doomed.tokens.access_token, rpc('ping'))).status).toBe(200);

    const context = await running.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${url}/settings/connected-apps`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, member.email, member.password);
    await page.waitForURL(`${url}/settings/connected-apps`);
    const list = page.getByRole('list', { name: 'Connected apps' });
    await expect(list.getByRole('listitem').count()).resolves.toBe(2);
    const doomedRow = list.getByRole('listitem').filter({ hasText: 'Doomed App' });
    expect(await doomedRow.textContent()).toMatch(/Unverified.*doomed\.example.*Acme.*Read your organization's data/s);

    await doomedRow.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Doomed App?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByRole('status').filter({ hasText: 'Doomed App was disconnected from Acme.' }).waitFor();
    await expect(list.getByRole('listitem').count()).resolves.toBe(1);
    await context.close();

    const next = await postMcp(url, doomed.tokens.access_token, rpc('ping'));
    expect(next.status).toBe(401);
    expect(next.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await postMcp(url, kept.tokens.access_token, rpc('ping'))).status).toBe(200);
  });
});
