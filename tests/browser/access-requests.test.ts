// Requests for access in a real browser (docs/protocol.md §5, §7): in an org that allows approved apps only,
// a member meets "Ask an admin of Acme" on the consent screen and asks with a note; the owner sees the count
// next to Clients, approves on the Requests page, and the member's next attempt connects. Each page passes
// an accessibility scan.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser, signInOnPage } from '../helpers/consent-browser';
import { authorizeUrl, pkce, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { callServerAction } from '../helpers/server-actions';
import { TEST_DEMO_PASSWORD } from '../helpers/server';
import { signIn } from '../helpers/session';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('access requests in Chromium', () => {
  const running = serverAndBrowser();

  async function signedInPage(url: string, person: { email: string; password: string }, landing: RegExp | string): Promise<Page> {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, person.email, person.password);
    await page.waitForURL(landing);
    return page;
  }

  it('a member asks with a note, the owner approves on the Requests page, and the member connects', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Team Dashboard', redirect_uris: ['https://team-dashboard.example/cb'] });
    const ownerJar = (await signIn(url, owner.email, owner.password)).jar;
    expect((await callServerAction(url, ownerJar, { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction' }, ['acme', { policy: 'approved' }], '/admin/acme')).result).toMatchObject({
      ok: true,
    });

    // The member: no org to pick, but a way to ask.
    const asking = await signedInPage(authorizeUrl(url, { client, challenge: pkce().challenge }), member, /\/consent\//);
    await asking.getByRole('heading', { level: 1, name: 'Team Dashboard cannot be connected' }).waitFor();
    await asking.getByRole('heading', { level: 2, name: 'Ask an admin of Acme' }).waitFor();
    await expectAccessible(asking, 'consent ask an admin');
    await asking.getByLabel('Note for the admins (optional)').fill('We use it for the weekly <b>report</b>.');
    await asking.getByRole('button', { name: 'Ask an admin of Acme' }).click();
    await asking.getByText('Request sent to the admins of Acme').waitFor();
    await expectAccessible(asking, 'consent request sent');
    await asking.context().close();

    // The owner: the count next to Clients, the Requests tab, the note as text.
    const admin = await signedInPage(`${url}/admin/acme/clients`, owner, `${url}/admin/acme/clients`);
    const clientsLink = admin.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: /Clients/ });
    expect(await clientsLink.textContent()).toMatch(/Clients1, 1 access request waiting/);
    await admin.getByRole('navigation', { name: 'Clients' }).getByRole('link', { name: 'Requests (1)' }).click();
    await admin.waitForURL(`${url}/admin/acme/clients/requests`);
    const row = admin.getByRole('row').filter({ hasText: 'Team Dashboard' });
    expect(await row.textContent()).toMatch(/Max Member.*member@acme\.test.*Team Dashboard.*We use it for the weekly <b>report<\/b>\./);
    await expectAccessible(admin, 'admin requests');
    await screenshot(admin, 'admin-requests');
    await row.getByRole('button', { name: 'Approve Team Dashboard for Max Member' }).click();
    await admin.locator('[data-toast="ok"]').filter({ hasText: 'Team Dashboard approved' }).waitFor();
    await admin.getByText('No request waits for an answer.').waitFor();
    await expect(admin.getByTestId('nav-count').count()).resolves.toBe(0);
    expect(await admin.getByRole('table', { name: 'Decided requests (latest 50)' }).textContent()).toMatch(/Team Dashboard.*Approved.*by Olivia Owner/);
    await admin.context().close();

    // The member's next attempt: Acme can be picked, and the app connects.
    const context = await running.browser.newContext();
    const callback = await approveInBrowser(context, authorizeUrl(url, { client, challenge: pkce().challenge }), client.redirect_uris[0]!, member);
    expect(callback.searchParams.get('code')).toBeTruthy();
    await context.close();
  });
});
