// The pages people meet outside the console — sign-in, the consent screen, Connected Apps, home — pass
// an axe-core scan with no serious or critical violation, are usable with the keyboard alone, and fit
// a phone-sized screen without sideways scrolling of the page. (Console pages are scanned by the
// console's own browser tests.)
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser, signInOnPage } from '../helpers/consent-browser';
import { authorizeUrl, connect, pkce, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}

describe.runIf(HAS_CHROMIUM)('accessibility and layout of the person-facing pages', () => {
  const running = serverAndBrowser();

  it('sign-in: no serious violations, on a desktop and a phone, before and after an error', async () => {
    const page = await (await running.browser.newContext({ viewport: PHONE })).newPage();
    await page.goto(`${running.server.url}/login`);
    await expectAccessible(page, 'sign-in');
    expect(await fitsWidth(page)).toBe(true);
    await signInOnPage(page, member.email, 'wrong password');
    await page.getByText('The email or password is incorrect.').waitFor();
    await expectAccessible(page, 'sign-in with an error');
    await page.setViewportSize(DESKTOP);
    await screenshot(page, 'login');
    await page.context().close();
  });

  it('the consent screen: no serious violations, fits a phone', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Phone App', redirect_uris: ['https://phone-app.example/cb'] });
    const context = await running.browser.newContext({ viewport: PHONE });
    await approveInBrowser(context, authorizeUrl(url, { client, challenge: pkce().challenge }), 'https://phone-app.example/cb', member, async (page) => {
      await expectAccessible(page, 'consent');
      expect(await fitsWidth(page)).toBe(true);
      await page.setViewportSize(DESKTOP);
      await screenshot(page, 'consent');
    });
    await context.close();
  });

  it('connected apps: keyboard only — Tab to Revoke, Enter opens the dialog, Escape cancels and focus returns', async () => {
    const { url } = running.server;
    await connect(url, await register(url, { client_name: 'Keyboard App', redirect_uris: ['https://keyboard.example/cb'] }), member);
    const page = await (await running.browser.newContext({ viewport: PHONE })).newPage();
    await page.goto(`${url}/settings/connected-apps`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, member.email, member.password);
    await page.waitForURL(`${url}/settings/connected-apps`);
    await expectAccessible(page, 'connected apps');
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize(DESKTOP);
    await screenshot(page, 'connected-apps');

    const revoke = page.getByRole('button', { name: /Revoke Keyboard App/ });
    for (let presses = 0; presses < 20 && !(await revoke.evaluate((element) => element === document.activeElement)); presses++) {
      await page.keyboard.press('Tab');
    }
    expect(await revoke.evaluate((element) => element === document.activeElement)).toBe(true);
    // The focused control shows a visible focus indicator (an outline or a ring).
    const focusStyle = await revoke.evaluate((element) => {
      const style = getComputedStyle(element);
      return { outline: style.outlineStyle, shadow: style.boxShadow };
    });
    expect(focusStyle.outline !== 'none' || focusStyle.shadow !== 'none').toBe(true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke Keyboard App?' });
    await dialog.waitFor();
    await expectAccessible(page, 'connected apps with the confirmation open');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(page.getByRole('listitem').filter({ hasText: 'Keyboard App' }).count()).resolves.toBe(1);
    await page.context().close();
  });

  it('home: no serious violations', async () => {
    const page = await (await running.browser.newContext({ viewport: DESKTOP })).newPage();
    await page.goto(`${running.server.url}/`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, 'owner@acme.test', TEST_DEMO_PASSWORD);
    await page.waitForURL(`${running.server.url}/`);
    await expectAccessible(page, 'home');
    await screenshot(page, 'home');
    await page.context().close();
  });
});
