// A person in a real browser: the sign-in page, a wrong password, who they are, signing out.
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

describe.runIf(HAS_CHROMIUM)('signing in with a browser', () => {
  const running = serverAndBrowser();

  it('sends a signed-out visitor to /login, which has labelled fields and a Sign in button', async () => {
    const page = await running.browser.newPage();
    await page.goto(`${running.server.url}/`);
    await page.waitForURL(`${running.server.url}/login`);
    await expect(page.getByLabel('Email').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('says so when the password is wrong, without saying whether the account exists', async () => {
    const page = await running.browser.newPage();
    await page.goto(`${running.server.url}/login`);
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The message is cleared while a sign-in is pending, so each wait sees the answer to its own attempt.
    const message = page.locator('#login-error');
    await message.waitFor();
    expect(await message.textContent()).toBe('The email or password is incorrect.');

    await page.getByLabel('Email').fill('nobody@acme.test');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await message.waitFor({ state: 'detached' });
    await message.waitFor();
    expect(await message.textContent()).toBe('The email or password is incorrect.');
    expect(page.url()).toBe(`${running.server.url}/login`);
    await page.close();
  });

  it('signs in, shows the person and their organizations with roles, and signs out', async () => {
    const context = await running.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.server.url}/login`);
    await page.getByLabel('Email').fill('member@acme.test');
    await page.getByLabel('Password').fill(TEST_DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Signed in as Max Member' }).waitFor();
    expect(page.url()).toBe(`${running.server.url}/`);
    const row = page.getByRole('row', { name: /Acme/ });
    expect(await row.textContent()).toMatch(/Acme.*Member.*Active.*Active/);
    expect(await page.getByRole('row').count()).toBe(2); // header + Acme

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${running.server.url}/login`);
    await page.goto(`${running.server.url}/`);
    await page.waitForURL(`${running.server.url}/login`);
    const cookies = await context.cookies();
    expect(cookies.some((cookie) => cookie.name.includes('session-token'))).toBe(false);
    await context.close();
  });
});
