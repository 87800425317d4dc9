// A person answering Gatehouse in Chromium: sign in when asked, approve on the consent screen, and hand
// back the URL the browser was sent to (the client's redirect URI, answered here without a network).
import type { BrowserContext, Page } from 'playwright-core';

export async function signInOnPage(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Opens an authorization URL, signs in if Gatehouse asks, approves, and returns the callback URL.
 * `redirectPrefix` is the client's redirect URI (or its start): requests to it are answered locally.
 */
export async function approveInBrowser(
  context: BrowserContext,
  authorizationUrl: string,
  redirectPrefix: string,
  person: { email: string; password: string },
  inspect?: (page: Page) => Promise<void>,
): Promise<URL> {
  const page = await context.newPage();
  let callback: string | null = null;
  await page.route(`${redirectPrefix}**`, async (route) => {
    callback = route.request().url();
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
  });
  await page.goto(authorizationUrl);
  if (new URL(page.url()).pathname === '/login') {
    await signInOnPage(page, person.email, person.password);
  }
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  if (inspect) await inspect(page);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((url) => url.toString().startsWith(redirectPrefix));
  await page.close();
  if (!callback) throw new Error('the browser never reached the redirect URI');
  return new URL(callback);
}
