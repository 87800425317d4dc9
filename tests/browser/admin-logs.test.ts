// An org owner in Chromium: the Overview draws its charts, the audit log filters by event type and opens
// an event, and both exports download exactly the filtered events.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { csvObjects, parseJsonLines } from '../helpers/csv';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('Overview and audit log export', () => {
  const running = serverAndBrowser();

  it('draws the charts, filters the audit log by type, opens an event, and exports exactly the filtered events', async () => {
    const { url } = running.server;
    const alpha = await connect(url, await register(url, { client_name: 'Alpha App', redirect_uris: ['https://alpha.example/cb'] }), owner);
    const beta = await connect(url, await register(url, { client_name: 'Beta, "the second"', redirect_uris: ['https://beta.example/cb'] }), member, { scopes: ['mcp:read'] });
    for (let index = 0; index < 3; index++) expect((await postMcp(url, alpha.tokens.access_token, rpc('ping'))).status).toBe(200);
    expect((await postMcp(url, beta.tokens.access_token, rpc('tools/call', { name: 'revoke_connected_app', arguments: { grantId: 'x' } }))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the call log is flushed within a second

    const context = await running.browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}/admin/acme`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${url}/admin/acme`);
    for (const name of [/Calls per day by app/, /Calls per day by outcome/]) {
      await page.getByRole('figure', { name }).locator('svg.recharts-surface').first().waitFor();
    }
    await expectAccessible(page, 'admin overview');
    await screenshot(page, 'admin-overview');
    await page.getByText('Show the numbers').first().click();
    await expect(page.getByRole('table', { name: 'Calls per day by app (numbers)' }).textContent()).resolves.toMatch(/Alpha App.*Beta, "the second".*3.*1.*4/s);

    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(`${url}/admin/acme/audit`);
    await page.getByLabel('Event type').selectOption('consent.granted');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/admin\/acme\/audit\?type=consent\.granted$/);
    const table = page.getByRole('table', { name: 'Audit events' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await expectAccessible(page, 'admin audit log');
    await screenshot(page, 'admin-audit');
    for (const text of await rows.allTextContents()) expect(text).toContain('consent.granted');
    const shownIds = (await table.getByRole('link', { name: /Details/ }).evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).pathname))).map((path) => path.split('/').at(-1)!);
    expect(shownIds).toHaveLength(2);

    await table
      .getByRole('link', { name: /Details/ })
      .last()
      .click();
    await page.getByRole('heading', { name: 'Event consent.granted' }).waitFor();
    expect(await page.locator('dl').textContent()).toMatch(/Olivia Owner.*Alpha App/s);
    await expectAccessible(page, 'admin audit event');
    await page.getByRole('link', { name: '← Audit log' }).click();
    await page.waitForURL(/\/admin\/acme\/audit\?type=consent\.granted$/);

    const today = new Date().toISOString().slice(0, 10);
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(csvDownload.suggestedFilename()).toBe(`acme-audit-${today}.csv`);
    const csv = csvObjects(await readFile(await csvDownload.path(), 'utf8'));
    expect(csv.map((event) => event.id)).toEqual(shownIds);
    expect(csv.map((event) => event.type)).toEqual(['consent.granted', 'consent.granted']);
    expect(csv.map((event) => event.clientName)).toEqual(['Beta, "the second"', 'Alpha App']);

    const [jsonlDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export JSON Lines' }).click()]);
    expect(jsonlDownload.suggestedFilename()).toBe(`acme-audit-${today}.jsonl`);
    const jsonl = parseJsonLines(await readFile(await jsonlDownload.path(), 'utf8'));
    expect(jsonl.map((event) => event.id)).toEqual(shownIds);
    expect(jsonl.map((event) => event.actorEmail)).toEqual(['member@acme.test', 'owner@acme.test']);
    expect(jsonl.every((event) => event.type === 'consent.granted')).toBe(true);

    await page.goto(`${url}/admin/acme/calls`);
    await page.getByRole('table').first().waitFor();
    await expectAccessible(page, 'admin call log');
    await screenshot(page, 'admin-calls');
    await page
      .getByRole('table')
      .first()
      .getByRole('link', { name: /Details/ })
      .first()
      .click();
    await page.waitForURL(/\/admin\/acme\/calls\/\d+/);
    await expectAccessible(page, 'admin call detail');
    await context.close();
  });
});
