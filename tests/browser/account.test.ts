// A person changes their password: the current one is required, and the new one works from then on.
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { signIn } from '../helpers/session';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

describe.runIf(HAS_CHROMIUM)('account settings', () => {
  const running = serverAndBrowser();

  it('changes the password only with the current one', async () => {
    const { url } = running.server;
    const page = await running.browser.newPage();
    await page.goto(`${url}/settings/account`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, 'viewer@acme.test', TEST_DEMO_PASSWORD);
    await page.waitForURL(`${url}/settings/account`);

    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('Repeat the new password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The current password is not correct.').waitFor();

    await page.getByLabel('Current password').fill(TEST_DEMO_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('Repeat the new password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password was changed.' }).waitFor();
    await page.close();

    expect((await signIn(url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(401);
    expect((await signIn(url, 'viewer@acme.test', 'a brand new password')).response.status).toBe(200);
  });
});
