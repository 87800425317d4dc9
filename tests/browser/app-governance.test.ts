// Governance that holds, tried in Chromium as an org admin and an instance admin would, with several
// people self-registering the same products from the registration fixtures: the Clients page shows one
// app for all of a product's registrations; blocking it there ends every connection of it; a fresh
// registration of the product, or a copy under another name with the same redirect, gets the blocked page
// naming the app and who blocked it; a loopback-only app's block says it can be escaped by renaming; and
// an instance admin's "Block everywhere" refuses an app in every organization.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, connect, pkce, type RegisteredClient, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';
import { registrationBody } from '../helpers/registration-fixtures';

const CLAUDE_WEB = registrationBody('Claude (claude.ai');
const CLAUDE_DESKTOP = registrationBody('Claude Desktop - remote');
const CURSOR = registrationBody('Cursor (desktop');
const CODEX = registrationBody('Codex');

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const viewer = { email: 'viewer@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('governance on apps, in Chromium', () => {
  const running = serverAndBrowser();
  const contexts: BrowserContext[] = [];
  afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function signedIn(person: { email: string; password: string }, path: string, landing: string | RegExp = `${running.server.url}${path}`): Promise<Page> {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(path.startsWith('http') ? path : `${running.server.url}${path}`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, person.email, person.password);
    await page.waitForURL(landing);
    return page;
  }

  const consentPage = (client: RegisteredClient, person: { email: string; password: string }) =>
    signedIn(person, authorizeUrl(running.server.url, { client, challenge: pkce().challenge }), /\/consent\//);

  /** The heading row of the app named `name` on a Clients page, where its decision and buttons are. */
  const appRow = (page: Page, name: string) => {
    const heading = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\d+ registrations?`);
    return page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: heading }) });
  };

  async function toast(page: Page, text: string | RegExp) {
    await page.locator('[data-toast="ok"]').filter({ hasText: text }).waitFor();
  }

  it('blocks a product once for all of its registrations, present and future, and under another name with the same redirect', async () => {
    const { url } = running.server;
    // Three people connect Claude: the web connector twice (two people) and Claude Desktop, which registers the same way.
    const connections = [await connect(url, await register(url, CLAUDE_WEB), member), await connect(url, await register(url, CLAUDE_DESKTOP), viewer, { scopes: ['mcp:read'] })];
    connections.push(await connect(url, await register(url, CLAUDE_WEB), owner));
    await connect(url, await register(url, CURSOR), member);
    // Someone elsewhere registered another app redirecting to claude.ai: a block on Claude covers it, and the dialog says so.
    await register(url, { client_name: 'Claude Labs', redirect_uris: ['https://claude.ai/labs/callback'] });

    const admin = await signedIn(owner, '/admin/acme/clients');
    await expectAccessible(admin, 'admin clients with apps');
    const claude = appRow(admin, 'Claude');
    expect(await claude.count()).toBe(1);
    expect(await claude.getByRole('rowheader').textContent()).toMatch(/Claude.*3 registrations.*redirects to claude\.ai/);
    expect(await claude.getByTestId('app-decision').textContent()).toMatch(/No decision/);
    await claude.getByRole('button', { name: /^Block/ }).click();
    const dialog = admin.getByRole('dialog', { name: 'Block Claude?' });
    expect(await dialog.textContent()).toMatch(/however many times it registers again, and its 3 live connections end at once/);
    expect(await dialog.textContent()).toMatch(/also covers every other app that redirects to the same hosts or private-use schemes \(redirects to claude\.ai\)/);
    expect(await dialog.textContent()).toMatch(/Apps seen on this Gatehouse that it covers now: Claude Labs\./);
    expect(await dialog.textContent()).not.toMatch(/covers now:.*Cursor/);
    await dialog.getByRole('button', { name: 'Block' }).click();
    await toast(admin, 'Claude is blocked; 3 connections ended.');
    await claude.getByTestId('app-decision').filter({ hasText: 'Blocked' }).waitFor();
    await screenshot(admin, 'admin-clients');
    for (const { tokens } of connections) expect((await postMcp(url, tokens.access_token, rpc('ping'))).status).toBe(401);

    // A fresh registration of the product: the blocked page, naming the app and who blocked it, and nothing to allow.
    const page = await consentPage(await register(url, CLAUDE_WEB), member);
    await page.getByRole('heading', { level: 1, name: 'Claude is blocked' }).waitFor();
    expect(await page.getByTestId('blocked-by').textContent()).toBe('Olivia Owner, an admin of Acme, blocked this app there.');
    expect(await page.getByRole('button', { name: /Allow/ }).count()).toBe(0);
    await expectAccessible(page, 'consent blocked');
    await screenshot(page, 'consent-blocked');

    // Another name, the same redirect host: covered by the block, through Claude.
    const copy = await consentPage(await register(url, { ...CLAUDE_WEB, client_name: 'Claude Helper' }), viewer);
    await copy.getByRole('heading', { level: 1, name: 'Claude Helper is blocked' }).waitFor();
    expect(await copy.getByTestId('blocked-by').textContent()).toBe('Olivia Owner, an admin of Acme, blocked Claude there, and this app shares a redirect with it.');

    // Cursor shares nothing with Claude: untouched.
    await admin.reload();
    expect(await appRow(admin, 'Cursor').getByTestId('app-decision').textContent()).toMatch(/No decision/);
  });

  it('says, before a loopback-only app is blocked, that a copy under another name escapes the block', async () => {
    const { url } = running.server;
    await connect(url, await register(url, CODEX), member);
    const admin = await signedIn(owner, '/admin/acme/clients');
    await appRow(admin, 'Codex')
      .getByRole('button', { name: /^Block/ })
      .click();
    const dialog = admin.getByRole('dialog', { name: 'Block Codex?' });
    expect(await dialog.textContent()).toMatch(/recognised by its name alone: a copy that registers under another name is another app, which this block does not cover/);
    await dialog.getByRole('button', { name: 'Block' }).click();
    await toast(admin, /^Codex is blocked/);
    // Renamed, it is another app (the block does not follow it); under its name again, it is blocked.
    const renamed = await consentPage(await register(url, { ...CODEX, client_name: 'Codex (renamed)' }), member);
    await renamed.getByRole('heading', { level: 1, name: /Allow Codex \(renamed\) to act for you/ }).waitFor();
    const again = await consentPage(await register(url, CODEX), member);
    await again.getByRole('heading', { level: 1, name: 'Codex is blocked' }).waitFor();
  });

  it('an instance admin blocks an app everywhere from the instance Clients page', async () => {
    const { url } = running.server;
    const everywhere = await register(url, { client_name: 'Everywhere Tool', redirect_uris: ['https://everywhere-tool.example/cb'] });
    const { tokens } = await connect(url, everywhere, member);
    const admin = await signedIn(owner, '/admin/instance');
    const row = appRow(admin, 'Everywhere Tool');
    await row.getByRole('button', { name: /^Block everywhere/ }).click();
    const dialog = admin.getByRole('dialog', { name: 'Block Everywhere Tool everywhere?' });
    await dialog.getByRole('button', { name: 'Block everywhere' }).click();
    await toast(admin, 'Everywhere Tool is blocked everywhere; 1 connection ended.');
    expect(await row.getByTestId('app-decision').textContent()).toMatch(/Blocked everywhere/);
    await expectAccessible(admin, 'instance clients with a block');
    await screenshot(admin, 'instance-clients');
    expect((await postMcp(url, tokens.access_token, rpc('ping'))).status).toBe(401);

    const page = await consentPage(await register(url, { client_name: 'Everywhere Tool', redirect_uris: ['https://everywhere-tool.example/cb'] }), member);
    await page.getByRole('heading', { level: 1, name: 'Everywhere Tool is blocked' }).waitFor();
    expect(await page.getByTestId('blocked-by').textContent()).toBe('Olivia Owner, an administrator of this Gatehouse, blocked this app everywhere, Acme included.');

    await row.getByRole('button', { name: /^Unblock everywhere/ }).click();
    await toast(admin, 'Everywhere Tool is no longer blocked everywhere.');
    const open = await consentPage(everywhere, member);
    await open.getByRole('heading', { level: 1, name: 'Allow Everywhere Tool to act for you in Acme?' }).waitFor();
  });
});
