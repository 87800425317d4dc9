// An instance admin adds a connector in Chromium (a real SDK upstream that wants an API key): Test
// connection shows the tools it found before anything is saved, Add saves it, the settings page edits it,
// and deleting it needs its slug typed. Every page passes an accessibility scan and fits a desktop and a
// phone without sideways scrolling.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/screenshots';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { TEST_DEMO_PASSWORD } from '../helpers/server';
import { echoTool, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const KEY = 'browser-key-3c5e7a9b1d2f4a6c';

describe.runIf(HAS_CHROMIUM)('the Connectors pages of the instance console', () => {
  const running = serverAndBrowser();
  let upstream: RunningUpstream;

  beforeAll(async () => {
    upstream = await startUpstream({
      stateful: false,
      requireHeader: { name: 'X-Api-Key', value: KEY },
      tools: [
        echoTool('search', { title: 'Search notes', description: 'Search the notes.', annotations: { readOnlyHint: true } }),
        echoTool('write_note', { title: 'Write a note', description: 'Write a note, with a long description that wraps on a phone rather than pushing the page sideways: <b>not markup</b>.' }),
      ],
    });
  }, 60_000);
  afterAll(async () => upstream?.stop());

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

  /** Fills the add form and tests the connection: the tools found are shown before anything is saved. */
  async function addNotes(page: Page, slug: string) {
    await page.getByLabel('Slug').fill(slug);
    await page.getByLabel('Name (optional)').fill('Team Notes');
    await page.getByLabel('URL', { exact: true }).fill(upstream.url);
    await page.getByRole('radio', { name: 'Header lines' }).check();
    await page.getByRole('textbox', { name: 'Headers to send' }).fill('X-Api-Key: wrong');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('alert').filter({ hasText: "refused Gatehouse's credential (HTTP 401)" }).waitFor();
    await page.getByRole('textbox', { name: 'Headers to send' }).fill(`X-Api-Key: ${KEY}`);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('heading', { name: 'The connection works: 2 tools found' }).waitFor();
    const found = await page.getByRole('list', { name: 'Tools found' }).textContent();
    expect(found).toMatch(/Search notes.*search.*mcp:read.*Write a note.*write_note.*mcp:write/s);
    // The upstream's words are text: its markup is shown, not rendered.
    expect(found).toContain('<b>not markup</b>');
    expect(await page.getByRole('list', { name: 'Tools found' }).locator('b').count()).toBe(0);
  }

  it('adds a connector after testing the connection, edits it and deletes it with its slug typed', async () => {
    const page = await ownerPage('/admin/instance/connectors');
    await page.getByText('No connector yet.').waitFor();
    await expectAccessible(page, 'instance connectors, empty');
    await page.getByRole('link', { name: 'Add a connector' }).click();
    await page.waitForURL(/\/admin\/instance\/connectors\/new$/);
    await addNotes(page, 'notes');
    await expectAccessible(page, 'add a connector, tested');
    await screenshot(page, 'instance-connector-add');
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('button', { name: 'Add connector' }).click();
    await page.waitForURL(/\/admin\/instance\/connectors\/notes$/);
    await page.getByRole('heading', { name: 'Team Notes', level: 1 }).waitFor();
    expect(await page.textContent('body')).not.toContain(KEY);
    expect(await page.getByText('Now: header lines (X-Api-Key)').count()).toBe(1);
    await expectAccessible(page, 'connector settings');
    expect(await fitsWidth(page)).toBe(true);

    await page.getByLabel('Name', { exact: true }).fill('Acme Notes');
    await page.getByLabel('Timeout (seconds)').fill('45');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await toast(page, 'Saved.');
    await page.getByRole('heading', { name: 'Acme Notes', level: 1 }).waitFor();
    expect(await page.getByLabel('Timeout (seconds)').inputValue()).toBe('45');

    await page.goto(`${running.server.url}/admin/instance/connectors`);
    const card = page.getByRole('article', { name: /Acme Notes/ });
    expect(await card.textContent()).toMatch(/Active.*Circuit closed.*2 active.*1 header.*nobody.*no organization/s);
    await expectAccessible(page, 'instance connectors, one');
    await screenshot(page, 'instance-connectors');
    await card.getByRole('link', { name: 'Settings of Acme Notes' }).click();
    await page.waitForURL(/\/admin\/instance\/connectors\/notes$/);

    await page.getByLabel('Type notes to confirm').fill('note');
    await page.getByRole('button', { name: 'Delete connector' }).click();
    await page.getByRole('alert').filter({ hasText: "Type the connector's slug, notes, to confirm" }).waitFor();
    await page.getByLabel('Type notes to confirm').fill('notes');
    await page.getByRole('button', { name: 'Delete connector' }).click();
    await page.waitForURL(/\/admin\/instance\/connectors$/);
    await toast(page, 'Acme Notes was deleted.');
    await page.getByText('No connector yet.').waitFor();
    await page.context().close();
  });

  it('fits a phone: the list, the add form with its tools, and the settings page', async () => {
    const page = await ownerPage('/admin/instance/connectors/new', PHONE);
    await addNotes(page, 'phone-notes');
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('button', { name: 'Add connector' }).click();
    await page.waitForURL(/\/admin\/instance\/connectors\/phone-notes$/);
    await page.getByRole('heading', { name: 'Team Notes', level: 1 }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, 'connector settings on a phone');
    await page.goto(`${running.server.url}/admin/instance/connectors`);
    await page.getByRole('article', { name: /Team Notes/ }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, 'instance connectors on a phone');
    await page.context().close();
  });
});
