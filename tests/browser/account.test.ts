// A person changes their password (the current one is required, the new one works from then on, and
// their other sessions end), sees where they are signed in, and signs out of the other sessions.
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { expectAccessible } from '../helpers/accessibility';
import { signInOnPage } from '../helpers/consent-browser';
import { screenshot } from '../helpers/screenshots';
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

  // Before its script has loaded (or with scripts off), the form posts itself with the framework's hidden
  // fields, bound arguments and all; the check that refuses forged action payloads must let it through.
  it('changes the password from a form sent without scripts', async () => {
    const { url } = running.server;
    const withScripts = await running.browser.newContext();
    const signInPage = await withScripts.newPage();
    await signInPage.goto(`${url}/settings/account`);
    await signInPage.waitForURL(/\/login/);
    await signInOnPage(signInPage, 'owner@acme.test', TEST_DEMO_PASSWORD);
    await signInPage.waitForURL(`${url}/settings/account`);
    const withoutScripts = await running.browser.newContext({ javaScriptEnabled: false });
    await withoutScripts.addCookies(await withScripts.cookies());
    const page = await withoutScripts.newPage();
    await page.goto(`${url}/settings/account`);
    expect(await page.locator('form input[type=hidden][name^="$ACTION_REF_"]').count()).toBe(1);
    await page.getByLabel('Current password').fill(TEST_DEMO_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('changed without scripts');
    await page.getByLabel('Repeat the new password').fill('changed without scripts');
    const [response] = await Promise.all([page.waitForResponse((answer) => answer.request().method() === 'POST'), page.getByRole('button', { name: 'Change password' }).click()]);
    expect(response.status()).toBe(200);
    await page.getByRole('status').filter({ hasText: 'Your password was changed.' }).waitFor();
    await withScripts.close();
    await withoutScripts.close();
    expect((await signIn(url, 'owner@acme.test', 'changed without scripts')).response.status).toBe(200);
  });

  it('lists the sign-in sessions and signs out of the others; a password change ends them too', async () => {
    const { url } = running.server;
    const elsewhere = await signIn(url, 'member@acme.test', TEST_DEMO_PASSWORD);
    const another = await signIn(url, 'member@acme.test', TEST_DEMO_PASSWORD);
    expect((await elsewhere.jar.fetch(`${url}/settings/account`)).status).toBe(200);

    const page = await (await running.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${url}/settings/account`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, 'member@acme.test', TEST_DEMO_PASSWORD);
    await page.waitForURL(`${url}/settings/account`);
    const sessions = page.getByRole('list', { name: 'Sign-in sessions' });
    await expect(sessions.getByRole('listitem').count()).resolves.toBe(3);
    expect(await sessions.getByRole('listitem').filter({ hasText: 'This browser' }).textContent()).toContain('Chrome on Linux');
    await expectAccessible(page, 'account settings');
    await screenshot(page, 'account');

    // One other session, then all the others.
    await sessions
      .getByRole('listitem')
      .filter({ hasNotText: 'This browser' })
      .first()
      .getByRole('button', { name: /Sign out/ })
      .click();
    await page.locator('[data-toast="ok"]').filter({ hasText: 'Signed out of 1 other session.' }).waitFor();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
    await page.getByRole('button', { name: 'Sign out of all other sessions' }).click();
    await page.getByRole('dialog', { name: 'Sign out everywhere else?' }).getByRole('button', { name: 'Sign out others' }).click();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
    for (const jar of [elsewhere.jar, another.jar]) {
      const refused = await jar.fetch(`${url}/settings/account`);
      expect(refused.status).toBe(307);
      expect(refused.headers.get('location')).toContain('/login');
    }

    // A password change ends every other session and keeps this one.
    const third = await signIn(url, 'member@acme.test', TEST_DEMO_PASSWORD);
    await page.getByLabel('Current password').fill(TEST_DEMO_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('another new password');
    await page.getByLabel('Repeat the new password').fill('another new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password was changed.' }).waitFor();
    expect((await third.jar.fetch(`${url}/settings/account`)).status).toBe(307);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Account' }).count()).resolves.toBe(1);
    await page.context().close();
  });
});
