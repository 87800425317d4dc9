// An org owner governs the org from the console, and each change shows on the very next /mcp call:
// revoke a member's connection, block a client (its consent is then refused), switch a tool off,
// deactivate the plan. Each page passes an accessibility scan.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, openConsent, pkce, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('the org admin console', () => {
  const running = serverAndBrowser();

  async function ownerPage(path: string): Promise<Page> {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${running.server.url}${path}`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${running.server.url}${path}`);
    return page;
  }

  async function toast(page: Page, text: string | RegExp) {
    await page.locator('[data-toast="ok"]').filter({ hasText: text }).waitFor();
  }

  it("revokes a member's connection: its next /mcp call gets 401", async () => {
    const { url } = running.server;
    const app = await connect(url, await register(url, { client_name: 'Member App', redirect_uris: ['https://member-app.example/cb'] }), member);
    expect((await postMcp(url, app.tokens.access_token, rpc('ping'))).status).toBe(200);

    const page = await ownerPage('/admin/acme/connected-apps');
    await expectAccessible(page, 'admin connected apps');
    await screenshot(page, 'admin-connected-apps');
    const row = page.getByRole('row').filter({ hasText: 'Member App' });
    expect(await row.textContent()).toMatch(/Max Member.*member@acme\.test/);
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Member App?' });
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await toast(page, 'Member App was disconnected for Max Member.');
    await expect(page.getByRole('row').filter({ hasText: 'Member App' }).count()).resolves.toBe(0);
    await page.context().close();

    const next = await postMcp(url, app.tokens.access_token, rpc('ping'));
    expect(next.status).toBe(401);
    expect(next.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('blocks a client for the org: its connection ends and its consent screen refuses the org', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Shady App', redirect_uris: ['https://shady.example/cb'] });
    const app = await connect(url, client, member);

    const page = await ownerPage('/admin/acme/clients');
    await expectAccessible(page, 'admin clients');
    // The registration's row (data cells), under its app's heading row.
    const row = page
      .getByRole('row')
      .filter({ hasText: 'Shady App' })
      .filter({ has: page.getByRole('cell'), hasNot: page.getByRole('rowheader') });
    expect(await page.getByRole('rowheader').filter({ hasText: 'Shady App' }).textContent()).toMatch(/Shady App.*1 registration.*App grouped by: redirects to shady\.example/);
    expect(await row.textContent()).toMatch(/Self-registered.*shady\.example\/cb/);
    // Decisions are made on the app, in its heading row.
    const heading = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Shady App/ }) });
    await heading.getByRole('button', { name: /^Block/ }).click();
    await page.getByRole('dialog', { name: 'Block Shady App?' }).getByRole('button', { name: 'Block' }).click();
    await toast(page, 'Shady App is blocked; 1 connection ended.');
    await page.context().close();

    expect((await postMcp(url, app.tokens.access_token, rpc('ping'))).status).toBe(401);
    const browser = new Browser(url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, authorizeUrl(url, { client, challenge: pkce().challenge }));
    expect(form.orgIds).toEqual([]);
    // Blocked in the only org the member has: the blocked page, naming who blocked it, and no question.
    expect(form.html).toContain('Olivia Owner, an admin of Acme, blocked this app there.');
    expect(form.html).not.toContain('to act for you');
  });

  it('switches a tool off: it leaves tools/list and execute_tool refuses it', async () => {
    const { url } = running.server;
    const app = await connect(url, await register(url, { client_name: 'Tool App', redirect_uris: ['https://tool-app.example/cb'] }), member);
    const listed = async () => ((await postMcp(url, app.tokens.access_token, rpc('tools/list'))).body!.result.tools as { name: string }[]).map((tool) => tool.name);
    expect(await listed()).toContain('whoami');

    const page = await ownerPage('/admin/acme/tools');
    await expectAccessible(page, 'admin tools');
    await page.getByRole('switch', { name: 'Who am I enabled' }).click();
    await toast(page, 'Who am I is off for this organization.');
    await expect(page.getByRole('switch', { name: 'Who am I enabled' }).getAttribute('aria-checked')).resolves.toBe('false');
    await screenshot(page, 'admin-tools');
    await page.context().close();

    expect(await listed()).not.toContain('whoami');
    const indirect = await postMcp(url, app.tokens.access_token, rpc('tools/call', { name: 'execute_tool', arguments: { name: 'whoami', arguments: {} } }));
    expect(indirect.status).toBe(200);
    expect(indirect.body?.result.isError).toBe(true);
    const direct = await postMcp(url, app.tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
    expect(direct.body?.result.isError).toBe(true);
  });

  it("deactivates the org's plan: the next /mcp call gets 403, and reactivating restores it", async () => {
    const { url } = running.server;
    const app = await connect(url, await register(url, { client_name: 'Plan App', redirect_uris: ['https://plan-app.example/cb'] }), member);

    const page = await ownerPage('/admin/acme/plan');
    await expectAccessible(page, 'admin plan');
    await page.getByRole('button', { name: 'Deactivate the plan' }).click();
    await page.getByRole('dialog', { name: "Deactivate Acme's plan?" }).getByRole('button', { name: 'Deactivate' }).click();
    await toast(page, "Acme's plan is inactive.");
    await screenshot(page, 'admin-plan');
    expect((await postMcp(url, app.tokens.access_token, rpc('ping'))).status).toBe(403);

    await page.getByRole('button', { name: 'Activate the plan' }).click();
    await toast(page, "Acme's plan is active.");
    await page.context().close();
    expect((await postMcp(url, app.tokens.access_token, rpc('ping'))).status).toBe(200);
  });

  it('sets the app policy to approved apps only, after saying how many connections end', async () => {
    const { url } = running.server;
    const approved = await connect(url, await register(url, { client_name: 'Trusted App', redirect_uris: ['https://trusted.example/cb'] }), member);
    const other = await connect(url, await register(url, { client_name: 'Other App', redirect_uris: ['https://other.example/cb'] }), member);

    const page = await ownerPage('/admin/acme/clients');
    await page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /Trusted App/ }) })
      .getByRole('button', { name: /^Approve/ })
      .click();
    await toast(page, 'Trusted App is approved.');
    await page.getByLabel(/Approved apps only/).check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Allow approved apps only?' });
    expect(await dialog.textContent()).toMatch(/\d+ live connections? of apps that are not approved will end/);
    await dialog.getByRole('button', { name: 'Save and end connections' }).click();
    await toast(page, /App policy saved; \d+ connections? of unapproved apps ended\./);
    await page.getByLabel(/^Open/).check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await toast(page, 'App policy saved.');
    await page.context().close();

    expect((await postMcp(url, approved.tokens.access_token, rpc('ping'))).status).toBe(200);
    expect((await postMcp(url, other.tokens.access_token, rpc('ping'))).status).toBe(401);
  });

  it('lets an owner register a confidential client and shows its secret once', async () => {
    const page = await ownerPage('/admin/acme/clients');
    await page.getByLabel('Name').fill('Acme Reports');
    await page.getByLabel('Redirect URIs').fill('https://reports.acme.example/oauth/callback');
    await page.getByRole('button', { name: 'Register client' }).click();
    await toast(page, 'Acme Reports is registered and approved for this organization.');
    const clientId = (await page.locator('[data-secret="Client ID"]').textContent())!;
    const secret = (await page.locator('[data-secret="Client secret"]').textContent())!;
    expect(secret.length).toBeGreaterThan(30);
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    expect(
      await page
        .getByRole('row')
        .filter({ hasText: 'Acme Reports' })
        .filter({ has: page.getByRole('cell'), hasNot: page.getByRole('rowheader') })
        .textContent(),
    ).toMatch(/Registered by an owner/);
    // The org approved the app it registered: the decision shows on the app's heading row.
    expect(
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: /Acme Reports/ }) })
        .getByTestId('app-decision')
        .textContent(),
    ).toMatch(/^Approved/);
    expect(await page.getByRole('rowheader').filter({ hasText: 'Acme Reports' }).textContent()).toMatch(/App grouped by: registered by an admin/);
    await page.context().close();

    // The client works with its secret (HTTP Basic) through the whole flow, in the org it belongs to.
    const { url } = running.server;
    const app = await connect(
      url,
      { client_id: clientId, client_secret: secret, redirect_uris: ['https://reports.acme.example/oauth/callback'], registration_access_token: '', registration_client_uri: '' },
      member,
    );
    expect((await postMcp(url, app.tokens.access_token, rpc('ping'))).status).toBe(200);
  });
});
