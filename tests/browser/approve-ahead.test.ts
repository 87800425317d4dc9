// An org owner approves an app ahead of time (docs/console.md): from the Clients page to Approve ahead,
// a search among the apps seen on the installation, Approve, and the row then says Approved. The page
// passes an accessibility scan.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('approving an app ahead of time', () => {
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

  it('finds an app nobody in the org connected, approves it, and shows it approved', async () => {
    const { url } = running.server;
    // Registered on the installation (by someone elsewhere), never connected in Acme.
    await register(url, { client_name: 'Ahead Browser App', redirect_uris: ['https://ahead-browser.example/cb'] });
    await register(url, { client_name: 'Another Seen App', redirect_uris: ['https://another-seen.example/cb'] });

    const page = await ownerPage('/admin/acme/clients');
    await page.getByRole('navigation', { name: 'Clients' }).getByRole('link', { name: 'Approve ahead' }).click();
    await page.waitForURL(`${url}/admin/acme/clients/approve`);
    await expectAccessible(page, 'admin approve ahead');

    await page.getByRole('searchbox', { name: 'Search apps' }).fill('ahead-browser');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\?q=ahead-browser/);
    const table = page.getByRole('table', { name: 'Apps seen on this Gatehouse' });
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Ahead Browser App/ }) });
    expect(await row.textContent()).toMatch(/Ahead Browser App.*redirects to ahead-browser\.example/);
    await expect(table.getByRole('rowheader', { name: /Another Seen App/ }).count()).resolves.toBe(0);

    await row.getByRole('button', { name: 'Approve Ahead Browser App' }).click();
    await page.locator('[data-toast="ok"]').filter({ hasText: 'Ahead Browser App is approved.' }).waitFor();
    await row.getByText('Approved', { exact: true }).waitFor();
    await expect(row.getByRole('button', { name: 'Clear the decision on Ahead Browser App' }).count()).resolves.toBe(1);
    await screenshot(page, 'admin-approve-ahead');

    // It stays approved when the page is read again, and the Clients page lists it with the decision.
    await page.reload();
    await row.getByText('Approved', { exact: true }).waitFor();
    await page.goto(`${url}/admin/acme/clients`);
    const heading = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Ahead Browser App/ }) });
    expect(await heading.getByTestId('app-decision').textContent()).toMatch(/^Approved/);
    await page.context().close();
  });
});
