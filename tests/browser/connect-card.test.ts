// A newcomer connects an MCP client from instructions inside the product: the "Connect an app" card on
// the home page, on an empty Connected apps page and on the overview of an org with no connections —
// the installation's /mcp URL (from PUBLIC_URL, nothing else), a copy button, one tab per client with
// the line from lib/connect/clients.ts, keyboard navigation between tabs, and without JavaScript every
// client's instructions at once.
import { request } from 'node:http';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { connectClients } from '@/lib/connect/clients';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { connect, register } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';
import { signIn } from '../helpers/session';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const TABS = ['Claude', 'ChatGPT', 'Claude Code', 'Cursor', 'VS Code'];

async function signedInPage(context: BrowserContext, url: string, path: string, person: { email: string; password: string }): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${url}${path}`);
  await page.waitForURL(/\/login/);
  await signInOnPage(page, person.email, person.password);
  await page.waitForURL(`${url}${path}`);
  return page;
}

function card(page: Page): Locator {
  return page.getByRole('region', { name: 'Connect an app' });
}

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement);
}

/** A GET with headers the browser would never let a page set (Host), and the session's cookies. */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port: target.port, path, method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe.runIf(HAS_CHROMIUM)('the Connect an app card', () => {
  const running = serverAndBrowser();

  it('home: the /mcp URL of PUBLIC_URL, the not-public note, one tab per client with its line, arrow keys between tabs, copy', async () => {
    const { url } = running.server;
    const mcp = `${url}/mcp`;
    const lines = connectClients(mcp);
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await signedInPage(context, url, '/', member);
    const connectCard = card(page);
    await connectCard.waitFor();
    expect(await connectCard.getByTestId('mcp-url').textContent()).toBe(mcp);
    // PUBLIC_URL is http://localhost:<port>: the cloud clients cannot reach it, the device clients can.
    const note = await connectCard.getByRole('note').textContent();
    expect(note).toContain(`${url} is not an https:// address`);
    expect(note).toContain('Claude and ChatGPT');
    expect(note).toContain('cannot reach it');
    expect(note).toContain('Claude Code, Cursor and VS Code run on your computer');

    const tablist = connectCard.getByRole('tablist', { name: 'MCP clients' });
    const tabs = tablist.getByRole('tab');
    expect(await tabs.allTextContents()).toEqual(TABS);
    // One panel shows at a time, the selected tab's, with that client's line.
    for (const [index, client] of lines.entries()) {
      await tabs.nth(index).click();
      expect(await tabs.nth(index).getAttribute('aria-selected')).toBe('true');
      const panels = connectCard.getByRole('tabpanel');
      await expect(panels.count()).resolves.toBe(1);
      expect(await panels.getAttribute('aria-labelledby')).toBe(await tabs.nth(index).getAttribute('id'));
      expect(await panels.getByTestId('connect-line').textContent()).toBe(client.line);
      expect(await panels.getByRole('heading', { level: 3 }).textContent()).toBe(client.name);
    }
    expect(lines.find((client) => client.id === 'claude-code')!.line).toBe(`claude mcp add --transport http gatehouse ${mcp}`);
    await expectAccessible(page, 'home with the Connect an app card');

    // Keyboard: only the selected tab is in the Tab order; arrows move and select, wrapping; Home and End.
    await tabs.nth(0).click();
    expect(await tabs.nth(0).getAttribute('tabindex')).toBe('0');
    expect(await tabs.nth(1).getAttribute('tabindex')).toBe('-1');
    await page.keyboard.press('ArrowRight');
    expect(await isFocused(tabs.nth(1))).toBe(true);
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
    expect(await connectCard.getByRole('tabpanel').getByTestId('connect-line').textContent()).toBe(lines[1]!.line);
    const focusStyle = await tabs.nth(1).evaluate((element) => {
      const style = getComputedStyle(element);
      return { outline: style.outlineStyle, shadow: style.boxShadow };
    });
    expect(focusStyle.outline !== 'none' || focusStyle.shadow !== 'none').toBe(true);
    await page.keyboard.press('End');
    expect(await isFocused(tabs.nth(4))).toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await isFocused(tabs.nth(0))).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await isFocused(tabs.nth(4))).toBe(true);
    expect(await tabs.nth(4).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Home');
    expect(await isFocused(tabs.nth(0))).toBe(true);
    // Tab leaves the tab list for the selected panel.
    await page.keyboard.press('Tab');
    expect(await isFocused(connectCard.getByRole('tabpanel'))).toBe(true);

    // Copy: the URL, then Cursor's mcp.json entry, on the clipboard; the live region says so.
    await connectCard.getByRole('button', { name: 'Copy the MCP URL' }).click();
    await connectCard.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mcp);
    await tabs.nth(3).click();
    await connectCard.getByRole('tabpanel').getByRole('button', { name: 'Copy the Cursor entry' }).click();
    await connectCard.getByRole('tabpanel').getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(lines.find((client) => client.id === 'cursor')!.line);
    expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual({ mcpServers: { gatehouse: { url: mcp } } });
    await context.close();
  });

  it('where the clipboard refuses, the copy button selects the line instead and says so (on a phone-sized screen)', async () => {
    const { url } = running.server;
    const context = await running.browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) } });
    });
    const page = await signedInPage(context, url, '/', member);
    const connectCard = card(page);
    await connectCard.getByRole('tab', { name: 'Claude Code' }).click();
    const panel = connectCard.getByRole('tabpanel');
    await panel.getByRole('button', { name: 'Copy the Claude Code command' }).click();
    await panel.getByRole('status').filter({ hasText: 'Selected: press Ctrl+C' }).waitFor();
    expect(await page.evaluate(() => window.getSelection()?.toString())).toBe(`claude mcp add --transport http gatehouse ${url}/mcp`);
    // The long lines wrap: nothing in the card reaches past the screen's edge.
    await connectCard.getByRole('tab', { name: 'VS Code' }).click();
    const wide = await connectCard.evaluate((element) =>
      [element, ...element.querySelectorAll('*')]
        .filter((inner) => inner.getBoundingClientRect().right > document.documentElement.clientWidth)
        .map((inner) => `${inner.tagName} ${inner.id} ${Math.round(inner.getBoundingClientRect().right)}`),
    );
    expect(wide).toEqual([]);
    await context.close();
  });

  it('without JavaScript, every client’s instructions are on the page, each under its heading', async () => {
    const { url } = running.server;
    const { jar } = await signIn(url, member.email, member.password);
    const context = await running.browser.newContext({ javaScriptEnabled: false });
    await context.addCookies(jar.entries().map(([name, value]) => ({ name, value, url })));
    const page = await context.newPage();
    await page.goto(`${url}/`);
    const connectCard = card(page);
    await connectCard.waitFor();
    await expect(connectCard.getByRole('tablist').count()).resolves.toBe(0);
    const lines = connectCard.getByTestId('connect-line');
    expect(await lines.allTextContents()).toEqual(connectClients(`${url}/mcp`).map((client) => client.line));
    for (let index = 0; index < TABS.length; index++) expect(await lines.nth(index).isVisible()).toBe(true);
    expect(await connectCard.getByRole('heading', { level: 3 }).allTextContents()).toEqual(connectClients(`${url}/mcp`).map((client) => client.name));
    // No button that would do nothing without a script.
    await expect(connectCard.getByRole('button').count()).resolves.toBe(0);
    await context.close();
  });

  it('appears on the empty Connected apps page and on the overview of an org without connections, and not once there is one', async () => {
    const { url } = running.server;
    const memberPage = await signedInPage(await running.browser.newContext(), url, '/settings/connected-apps', member);
    await card(memberPage).waitFor();
    expect(await card(memberPage).getByTestId('mcp-url').textContent()).toBe(`${url}/mcp`);
    await memberPage.getByText('No apps are connected to your account.').waitFor();
    await expectAccessible(memberPage, 'connected apps, empty, with the Connect an app card');

    const ownerPage = await signedInPage(await running.browser.newContext(), url, '/admin/acme', owner);
    await card(ownerPage).waitFor();
    await expectAccessible(ownerPage, 'org overview with the Connect an app card');

    await connect(url, await register(url, { client_name: 'First App', redirect_uris: ['https://first-app.example/cb'] }), member);
    await memberPage.reload();
    await memberPage.getByRole('list', { name: 'Connected apps' }).getByRole('listitem').filter({ hasText: 'First App' }).waitFor();
    await expect(card(memberPage).count()).resolves.toBe(0);
    await ownerPage.reload();
    await ownerPage.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect(card(ownerPage).count()).resolves.toBe(0);
    // The home page keeps it: a person may connect more than one app.
    await memberPage.goto(`${url}/`);
    await card(memberPage).waitFor();
    await memberPage.context().close();
    await ownerPage.context().close();
  });

  it('hostile: nothing in the request — Host, X-Forwarded-Host, the query — changes the URL shown; it is PUBLIC_URL’s', async () => {
    const { url, port } = running.server;
    const { jar } = await signIn(url, member.email, member.password);
    const evil = 'evil.example';
    const attempts: Record<string, string>[] = [{ host: evil }, { host: `localhost:${port}`, 'x-forwarded-host': evil, 'x-forwarded-proto': 'https', forwarded: `host=${evil};proto=https` }];
    for (const headers of attempts) {
      const response = await rawGet(url, `/?url=https://${evil}/mcp&publicUrl=https://${evil}&mcp=https://${evil}/mcp`, { ...headers, cookie: jar.header() });
      expect(response.status, response.body.slice(0, 500)).toBe(200);
      // What the card shows: the URL, and each client's line (the page's own data may echo the query).
      const shown = [...response.body.matchAll(/data-testid="(?:mcp-url|connect-line|not-public-note)"[^>]*>([^<]*)</g)].map((match) => match[1]!);
      expect(shown).toHaveLength(1 + TABS.length + 1);
      for (const text of shown) expect(text).not.toContain(evil);
      expect(shown[0]).toBe(`${url}/mcp`);
    }
    const page = await (await running.browser.newContext()).newPage();
    await page.setExtraHTTPHeaders({ 'x-forwarded-host': evil, 'x-forwarded-proto': 'https' });
    await page.context().addCookies(jar.entries().map(([name, value]) => ({ name, value, url })));
    await page.goto(`${url}/?url=https://${evil}/mcp#https://${evil}/mcp`);
    expect(await card(page).getByTestId('mcp-url').textContent()).toBe(`${url}/mcp`);
    expect(await card(page).textContent()).not.toContain(evil);
    await page.context().close();
  });
});
