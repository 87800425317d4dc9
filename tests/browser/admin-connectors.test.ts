// An org owner switches on, in Chromium, a connector an instance admin offered to Acme (a real SDK
// upstream added with the command line), sees its tools, follows the link to the Tools tab and switches
// one tool off there; a member's app sees each change on its next tools/list. Switching the connector off
// asks first and says what happens. Both pages pass an accessibility scan and fit a desktop and a phone.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/screenshots';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { runCli } from '../helpers/cli';
import { signInOnPage } from '../helpers/consent-browser';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD } from '../helpers/server';
import { echoTool, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe.runIf(HAS_CHROMIUM)('the Connectors page of the org console', () => {
  const running = serverAndBrowser();
  let upstream: RunningUpstream;
  let app: Tokens;

  beforeAll(async () => {
    upstream = await startUpstream({
      stateful: false,
      tools: [
        echoTool('search', { title: 'Search notes', description: 'Search the notes.', annotations: { readOnlyHint: true } }),
        echoTool('write_note', { title: 'Write a note', description: 'Write a note, a long description that wraps on a phone rather than pushing the page sideways.' }),
      ],
    });
    // The embedded database belongs to the server's process: the command line runs while it is stopped.
    await running.server.halt();
    for (const args of [
      ['add', 'notes', upstream.url, '--name', 'Team Notes', '--description', 'The notes of every team at Acme.'],
      ['offer', 'notes', '--orgs', 'acme'],
    ]) {
      const result = await runCli('lib/cli/connectors.ts', args, running.server.env);
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
    running.server = await startServer(running.server.restartOptions);
    const { url } = running.server;
    app = (await connect(url, await register(url, { client_name: 'Notes App', redirect_uris: ['https://notes-app.example/cb'] }), member)).tokens;
  }, 180_000);
  afterAll(async () => upstream?.stop());

  const listed = async () => ((await postMcp(running.server.url, app.access_token, rpc('tools/list'))).body!.result.tools as { name: string }[]).map((tool) => tool.name);

  async function ownerPage(path: string, viewport = DESKTOP): Promise<Page> {
    const page = await (await running.browser.newContext({ viewport })).newPage();
    await page.goto(`${running.server.url}${path}`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${running.server.url}${path}`);
    return page;
  }

  const toast = (page: Page, text: string | RegExp) => page.locator('[data-toast="ok"]').filter({ hasText: text }).waitFor();
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  /** The control is on screen horizontally once scrolled to, and takes a click. */
  async function expectReachable(page: Page, name: string, viewportWidth: number) {
    const control = page.getByRole('switch', { name });
    await control.scrollIntoViewIfNeeded();
    const box = (await control.boundingBox())!;
    expect(box.x, name).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, name).toBeLessThanOrEqual(viewportWidth);
  }

  it('switches the connector on, shows its tools, and switches one tool off on the Tools tab: the app sees each change', async () => {
    expect((await listed()).filter((name) => name.startsWith('notes__'))).toEqual([]);
    const page = await ownerPage('/admin/acme/connectors');
    await page.getByRole('heading', { name: /Team Notes/ }).waitFor();
    await expectAccessible(page, 'admin connectors');
    expect(await fitsWidth(page)).toBe(true);

    const connector = page.getByRole('switch', { name: 'Team Notes on for Acme' });
    expect(await connector.getAttribute('aria-checked')).toBe('false');
    const tools = page.getByRole('list', { name: 'Tools of Team Notes' });
    expect(await tools.textContent()).toMatch(/Search notes.*notes__search.*mcp:read.*Write a note.*notes__write_note.*mcp:write/s);

    await connector.click();
    await toast(page, 'Team Notes is on for Acme');
    expect(await connector.getAttribute('aria-checked')).toBe('true');
    expect((await listed()).filter((name) => name.startsWith('notes__'))).toEqual(['notes__search', 'notes__write_note']);
    await expectAccessible(page, 'admin connectors, one on');
    await screenshot(page, 'admin-connectors');

    await page.getByRole('link', { name: 'Switch its tools one by one on the Tools tab' }).click();
    await page.waitForURL(`${running.server.url}/admin/acme/tools#connector-notes`);
    const section = page.getByRole('region', { name: /Team Notes/ });
    const search = section.getByRole('switch', { name: 'Search notes (notes__search) enabled' });
    expect(await search.getAttribute('aria-checked')).toBe('true');
    await expectAccessible(page, 'admin tools with a connector');
    await search.click();
    await toast(page, 'Search notes is off for this organization.');
    expect(await search.getAttribute('aria-checked')).toBe('false');
    expect((await listed()).filter((name) => name.startsWith('notes__'))).toEqual(['notes__write_note']);

    // Back on the Connectors page the tool is marked off; switching the connector off asks first and says what happens.
    await page.goto(`${running.server.url}/admin/acme/connectors`);
    expect(await page.getByRole('list', { name: 'Tools of Team Notes' }).textContent()).toContain('Off on the Tools tab');
    await page.getByRole('switch', { name: 'Team Notes on for Acme' }).click();
    const dialog = page.getByRole('dialog', { name: 'Switch off Team Notes?' });
    expect(await dialog.textContent()).toContain('Its 2 tools disappear from /mcp at once for everyone in Acme');
    await expectAccessible(page, 'admin connectors, switching off');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await listed()).toContain('notes__write_note');
    await page.getByRole('switch', { name: 'Team Notes on for Acme' }).click();
    await dialog.getByRole('button', { name: 'Switch off' }).click();
    await toast(page, 'Team Notes is off for Acme');
    expect((await listed()).filter((name) => name.startsWith('notes__'))).toEqual([]);
    await page.context().close();
  });

  it('fits a phone: no sideways scrolling, every switch on screen and working', async () => {
    const page = await ownerPage('/admin/acme/connectors', PHONE);
    await page.getByRole('heading', { name: /Team Notes/ }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectReachable(page, 'Team Notes on for Acme', PHONE.width);
    await expectAccessible(page, 'admin connectors on a phone');
    await page.getByRole('switch', { name: 'Team Notes on for Acme' }).click();
    await toast(page, 'Team Notes is on for Acme');
    await page.getByRole('link', { name: 'Switch its tools one by one on the Tools tab' }).click();
    await page.waitForURL(/\/admin\/acme\/tools#connector-notes$/);
    await page.getByRole('region', { name: /Team Notes/ }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    for (const name of ['Search notes (notes__search) enabled', 'Write a note (notes__write_note) enabled', 'Who am I enabled']) await expectReachable(page, name, PHONE.width);
    await page.getByRole('switch', { name: 'Search notes (notes__search) enabled' }).click();
    await toast(page, 'Search notes is on for this organization.');
    expect(await listed()).toContain('notes__search');
    await page.context().close();
  });
});
