// The consent screen says what the app will do (docs/protocol.md §5): the tools it could call in the
// picked org with the ticked boxes (from the same gates /mcp applies), for how long, where to revoke it;
// a heading naming the org when only one is eligible; the role's unusable scopes left unticked; a failed
// submit that keeps what was picked and ticked, re-checked against what was offered; a blocked app's page
// naming who blocked it; and a sign-in step that names the app. Everything a client or a URL controls is
// shown as text, never trusted.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { authorizeUrl, connect, pkce, type RegisteredClient, register } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const viewer = { email: 'viewer@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('the consent screen in Chromium', () => {
  const running = serverAndBrowser();
  const contexts: BrowserContext[] = [];
  // Registered after serverAndBrowser's: runs before the browser closes.
  afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A signed-in page on the consent screen of a fresh authorization request of `client`. */
  async function consentPage(client: RegisteredClient, person: { email: string; password: string }, scope?: string): Promise<Page> {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    // The client's redirect URI is answered locally: no network.
    await page.route(`${client.redirect_uris[0]}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the app' }));
    await page.goto(authorizeUrl(running.server.url, { client, challenge: pkce().challenge, ...(scope ? { scope } : {}) }));
    await page.waitForURL(/\/login/);
    await signInOnPage(page, person.email, person.password);
    await page.waitForURL(/\/consent\//);
    return page;
  }

  async function listedTools(page: Page): Promise<string[]> {
    return page.locator('[data-testid="consent-tools"] [data-tool]').evaluateAll((items) => items.map((item) => item.getAttribute('data-tool') ?? ''));
  }

  async function ticked(page: Page): Promise<string[]> {
    return page.locator('input[name="scope"]:checked').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  }

  async function pickedOrg(page: Page): Promise<string | null> {
    return page.locator('input[name="org"]:checked').evaluateAll((inputs) => (inputs[0] as HTMLInputElement | undefined)?.value ?? null);
  }

  async function ownerConsole(path: string): Promise<Page> {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${running.server.url}${path}`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${running.server.url}${path}`);
    return page;
  }

  it('with one eligible org: names it in the heading, lists the tools, follows the ticks, and says for how long and where to revoke', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Tools App', redirect_uris: ['https://tools-app.example/cb'] });
    const page = await consentPage(client, member);
    await page.getByRole('heading', { level: 1, name: 'Allow Tools App to act for you in Acme?' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Tools App to act for you in Acme?');
    // The resource by name, not its URL.
    expect(await page.getByTestId('resource').textContent()).toBe(`Gatehouse at ${new URL(url).host}`);
    expect(await page.getByTestId('resource').textContent()).not.toContain('/mcp');
    // Self-registered: unverified, with the host it sends the person back to.
    expect(await page.locator('main').textContent()).toMatch(/Unverified.*sends you back to tools-app\.example/s);

    // A member, both boxes: every tool but the audit log (which needs audit:read).
    expect(await ticked(page)).toEqual(['mcp:read', 'mcp:write']);
    expect(await listedTools(page)).toEqual(['whoami', 'list_connected_apps', 'revoke_connected_app', 'list_members', 'execute_tool']);
    await page.getByLabel(/Make changes on your behalf/).uncheck();
    expect(await listedTools(page)).toEqual(['whoami', 'list_connected_apps', 'list_members', 'execute_tool']);
    await page.getByLabel(/Read your organization's data/).uncheck();
    await page.getByLabel(/Make changes on your behalf/).check();
    expect(await listedTools(page)).toEqual(['revoke_connected_app', 'execute_tool']);
    await page.getByLabel(/Make changes on your behalf/).uncheck();
    expect(await listedTools(page)).toEqual([]);
    expect(await page.getByTestId('consent-tools').textContent()).toContain('cannot call any tool');

    const duration = await page.getByTestId('consent-duration').textContent();
    expect(duration).toContain('until you revoke it');
    expect(duration).toContain('after 30 days without use');
    await expect(page.getByRole('link', { name: 'Settings → Connected apps' }).getAttribute('href')).resolves.toBe('/settings/connected-apps');
  });

  it('shows the tools for the opening choice without script', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'No Script App', redirect_uris: ['https://no-script.example/cb'] });
    const context = await running.browser.newContext({ javaScriptEnabled: false });
    contexts.push(context);
    const page = await context.newPage();
    // Signing in needs script; the consent screen itself must not.
    const signedIn = await running.browser.newContext();
    contexts.push(signedIn);
    const signing = await signedIn.newPage();
    await signing.goto(authorizeUrl(url, { client, challenge: pkce().challenge }));
    await signing.waitForURL(/\/login/);
    await signInOnPage(signing, member.email, member.password);
    await signing.waitForURL(/\/consent\//);
    await context.addCookies(await signedIn.cookies());
    await page.goto(signing.url());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow No Script App to act for you in Acme?');
    expect(await listedTools(page)).toEqual(['whoami', 'list_connected_apps', 'revoke_connected_app', 'list_members', 'execute_tool']);
  });

  it("leaves a viewer's boxes unticked (the role runs no tools), still tickable", async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Viewer App', redirect_uris: ['https://viewer-app.example/cb'] });
    const page = await consentPage(client, viewer);
    await page.getByRole('heading', { level: 1, name: 'Allow Viewer App to act for you in Acme?' }).waitFor();
    expect(await ticked(page)).toEqual([]);
    expect(await page.locator('main').textContent()).toContain('the app will not be able to run tools');
    await page.getByLabel(/Read your organization's data/).check();
    expect(await ticked(page)).toEqual(['mcp:read']);
    expect(await listedTools(page)).toEqual([]);
  });

  it('with several eligible orgs: no org in the heading, the org is picked first, and the tool list follows the pick', async () => {
    const { url } = running.server;
    // A second active org for the owner, with "Who am I" switched off there.
    const admin = await ownerConsole('/admin/instance/organizations');
    await admin.getByLabel('Name').fill('Globex');
    await admin.getByLabel('Owner’s email').fill(owner.email);
    await admin.getByRole('button', { name: 'Create organization' }).click();
    await admin.locator('[data-toast="ok"]').filter({ hasText: 'Globex was created' }).waitFor();
    await admin.goto(`${url}/admin/globex/tools`);
    await admin.getByRole('switch', { name: 'Who am I enabled' }).click();
    await admin.locator('[data-toast="ok"]').filter({ hasText: 'Who am I is off for this organization.' }).waitFor();

    const client = await register(url, { client_name: 'Two Orgs App', redirect_uris: ['https://two-orgs.example/cb'] });
    const page = await consentPage(client, owner);
    await page.getByRole('heading', { level: 1, name: 'Allow Two Orgs App to act for you?' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Two Orgs App to act for you?');
    // The org comes before the boxes and the tools.
    const order = await page.locator('legend, h2').allTextContents();
    expect(order.slice(0, 3)).toEqual(['Organization', 'This app will be able to', expect.stringMatching(/^Tools it can call in /)]);

    await page.getByLabel(/^Acme/).check();
    expect(await page.locator('#consent-tools-heading').textContent()).toBe('Tools it can call in Acme');
    expect(await listedTools(page)).toEqual(['whoami', 'list_connected_apps', 'revoke_connected_app', 'list_members', 'read_audit_log', 'execute_tool']);
    await page.getByLabel(/^Globex/).check();
    expect(await page.locator('#consent-tools-heading').textContent()).toBe('Tools it can call in Globex');
    expect(await listedTools(page)).toEqual(['list_connected_apps', 'revoke_connected_app', 'list_members', 'read_audit_log', 'execute_tool']);
    await page.getByLabel(/Read your organization's data/).uncheck();
    expect(await listedTools(page)).toEqual(['revoke_connected_app', 'execute_tool']);
  });

  it('keeps what was picked and ticked after a failed submit', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Retry App', redirect_uris: ['https://retry-app.example/cb'] });
    const page = await consentPage(client, owner);
    const globex = await page.getByLabel(/^Globex/).getAttribute('value');
    await page.getByLabel(/^Globex/).check();
    await page.getByLabel(/Read your organization's data/).uncheck();
    await page.getByLabel(/Make changes on your behalf/).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tick at least one of the boxes' }).waitFor();
    expect(await pickedOrg(page)).toBe(globex);
    expect(await ticked(page)).toEqual([]);

    // An org that cannot be picked (Initech's plan is inactive), forced past the disabled radio: the
    // message asks for another org, and the ticked box stays ticked.
    await page.getByLabel(/Read your organization's data/).check();
    await page.locator('input[name="org"][disabled]').evaluate((input) => {
      (input as HTMLInputElement).disabled = false;
      (input as HTMLInputElement).checked = true;
    });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('alert').filter({ hasText: 'Pick an organization where this app may be connected.' }).waitFor();
    expect(await ticked(page)).toEqual(['mcp:read']);
    expect(await listedTools(page)).toContain('whoami');
    // Not the ineligible org: the first eligible one.
    const eligible = await page.locator('input[name="org"]:not([disabled])').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    expect(await pickedOrg(page)).toBe(eligible[0]);

    // And it still goes through: the browser is sent to the app with a code (read from the request itself,
    // so that the answer does not depend on the local stand-in for the app's page).
    const back = page.waitForRequest((request) => request.url().startsWith('https://retry-app.example/cb'));
    await page.getByRole('button', { name: 'Allow' }).click();
    expect(new URL((await back).url()).searchParams.get('code')).toBeTruthy();
  });

  it('never ticks a scope the request did not offer, nor picks an org the person is not in, from a tampered URL', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Tamper App', redirect_uris: ['https://tamper-app.example/cb'] });
    // Globex's id, from its owner's consent screen; the member is not in Globex.
    const ownerPage = await consentPage(client, owner);
    const globex = await ownerPage.getByLabel(/^Globex/).getAttribute('value');
    const initech = await ownerPage.locator('input[name="org"][disabled]').getAttribute('value');

    const page = await consentPage(client, member, 'mcp:read');
    const consent = page.url();
    for (const org of [globex, initech, '__proto__', 'x'.repeat(5000)]) {
      const tampered = new URL(consent);
      tampered.searchParams.set('error', 'org');
      tampered.searchParams.set('org', org!);
      for (const scope of ['mcp:write', 'mcp:admin', '<b>x</b>', 'mcp:read']) tampered.searchParams.append('scope', scope);
      await page.goto(tampered.toString());
      await page.locator('#consent-error').waitFor();
      const offered = await page.locator('input[name="scope"]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
      expect(offered, org!.slice(0, 20)).toEqual(['mcp:read']);
      expect(await ticked(page)).toEqual(['mcp:read']);
      const radios = await page.locator('input[name="org"]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
      expect(radios).not.toContain(globex);
      expect(await pickedOrg(page)).toBe(radios[0]);
      expect(await page.locator('main').textContent()).not.toContain('<b>x</b>');
    }
  });

  it('a blocked app gets a page that says who blocked it, with no Allow question; Return goes back to the app', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Blocked App', redirect_uris: ['https://blocked-app.example/cb'] });
    await connect(url, client, member);
    const admin = await ownerConsole('/admin/acme/clients');
    await admin
      .getByRole('row')
      .filter({ has: admin.getByRole('rowheader', { name: /Blocked App/ }) })
      .getByRole('button', { name: /^Block/ })
      .click();
    await admin.getByRole('dialog', { name: 'Block Blocked App?' }).getByRole('button', { name: 'Block' }).click();
    await admin.locator('[data-toast="ok"]').filter({ hasText: 'Blocked App is blocked' }).waitFor();

    const page = await consentPage(client, member);
    await page.getByRole('heading', { level: 1, name: 'Blocked App is blocked' }).waitFor();
    expect(await page.getByTestId('blocked-by').textContent()).toBe('Olivia Owner, an admin of Acme, blocked this app there.');
    expect(await page.locator('main').textContent()).not.toMatch(/Allow/);
    await expect(page.getByRole('button', { name: 'Allow' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Return to the app' }).click();
    await page.waitForURL((next) => next.toString().startsWith('https://blocked-app.example/cb'));
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
  });

  it('the sign-in step names the app, from the request and not from the URL, as text', async () => {
    const { url } = running.server;
    const hostile = `<img src=x onerror="window.__xss=1">Evil & Co`;
    const client = await register(url, { client_name: hostile, redirect_uris: ['https://hostile-name.example/cb'] });
    const context = await running.browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(authorizeUrl(url, { client, challenge: pkce().challenge }));
    await page.waitForURL(/\/login/);
    await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${hostile}` }).waitFor();
    expect(await page.getByTestId('signing-in-for').textContent()).toBe(hostile);
    expect(await page.locator('img[src="x"]').count()).toBe(0);

    // The consent screen shows the same name as text.
    await signInOnPage(page, member.email, member.password);
    await page.waitForURL(/\/consent\//);
    expect(await page.getByTestId('client-name').textContent()).toBe(hostile);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss ?? null)).toBeNull();

    // Not a live request, or not the consent screen: the plain heading, whatever the URL says.
    const fresh = await (await running.browser.newContext()).newPage();
    for (const callbackUrl of ['/consent/no-such-request', '/settings?app=Evil', 'https://evil.example/consent/x']) {
      await fresh.goto(`${url}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      expect(await fresh.getByRole('heading', { level: 1 }).textContent(), callbackUrl).toBe('Sign in to Gatehouse');
    }
    await fresh.context().close();
  });
});
