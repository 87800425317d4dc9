// An owner manages Acme's members in Chromium, and each change reaches the member's connected app on its
// very next /mcp call: deactivated → 403, reactivated → 200, removed → 401 invalid_token. An invited
// person opens the one-time link in a browser of their own, sets a password and signs in with it.
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/accessibility';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { signInOnPage } from '../helpers/consent-browser';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register } from '../helpers/oauth';
import { screenshot } from '../helpers/screenshots';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.runIf(HAS_CHROMIUM)('Members page', () => {
  const running = serverAndBrowser();

  async function membersPage() {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: running.server.url });
    const page = await context.newPage();
    await page.goto(`${running.server.url}/admin/acme/members`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${running.server.url}/admin/acme/members`);
    return { context, page, table: page.getByRole('table', { name: 'Members of Acme' }) };
  }

  it('deactivates, reactivates and removes a member; their app sees each change on its next call', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Max’s Client', redirect_uris: ['https://max.example/cb'] });
    const { tokens } = await connect(url, client, member);
    const ping = () => postMcp(url, tokens.access_token, rpc('ping'));
    expect((await ping()).status).toBe(200);

    const { context, page, table } = await membersPage();
    const row = table.getByRole('row').filter({ hasText: 'Max Member' });
    expect(await row.textContent()).toMatch(/member@acme\.test.*Active.*1/s);
    await expectAccessible(page, 'admin members');
    await screenshot(page, 'admin-members');

    await row.getByRole('button', { name: 'Deactivate Max Member' }).click();
    const deactivate = page.getByRole('dialog', { name: 'Deactivate Max Member?' });
    expect(await deactivate.textContent()).toContain('Their 1 connection in Acme is kept.');
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('status').filter({ hasText: 'Max Member was deactivated.' }).waitFor();
    await row.getByText('Deactivated').waitFor();
    const refused = await ping();
    expect(refused.status).toBe(403);
    expect(refused.body!.error.message).toMatch(/deactivated/);

    await row.getByRole('button', { name: 'Reactivate Max Member' }).click();
    await page.getByRole('status').filter({ hasText: 'Max Member was reactivated.' }).waitFor();
    expect((await ping()).status).toBe(200);

    // A role changes through its select, after a confirmation.
    const vera = table.getByRole('row').filter({ hasText: 'Vera Viewer' });
    await vera.getByLabel('Role of Vera Viewer').selectOption('member');
    await page.getByRole('dialog', { name: 'Make Vera Viewer member?' }).getByRole('button', { name: 'Change role' }).click();
    await page.getByRole('status').filter({ hasText: 'Vera Viewer is now member.' }).waitFor();
    await expect.poll(() => vera.getByLabel('Role of Vera Viewer').inputValue()).toBe('member');

    await row.getByRole('button', { name: 'Remove Max Member' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove Max Member?' });
    expect(await remove.textContent()).toContain('Their 1 connection in Acme is revoked at once');
    await remove.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').filter({ hasText: 'Max Member was removed from Acme; 1 connection revoked.' }).waitFor();
    await table.getByRole('row').filter({ hasText: 'Max Member' }).waitFor({ state: 'detached' });
    await context.close();

    const removed = await ping();
    expect(removed.status).toBe(401);
    expect(removed.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('invites a new person: the one-time link is shown once, and opened elsewhere it sets a password to sign in with', async () => {
    const { context, page, table } = await membersPage();
    await page.getByLabel('Email', { exact: true }).fill('nina@acme.test');
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText('No account uses nina@acme.test yet.').waitFor();
    await page.getByLabel('Their name').fill('Nina New');
    await page.getByRole('button', { name: 'Invite' }).click();

    const dialog = page.getByRole('dialog', { name: 'Invitation link for Nina New' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/Send it to nina@acme\.test yourself: no email was sent\. It works once, until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 7 days\)/);
    const link = await dialog.getByLabel('One-time link').inputValue();
    expect(link).toMatch(new RegExp(`^${running.server.url}/set-password/[A-Za-z0-9_-]{43}$`));
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = table.getByRole('row').filter({ hasText: 'Nina New' });
    await row.getByText('Invitation pending').waitFor();
    await expect.poll(() => row.getByLabel('Role of Nina New').inputValue()).toBe('admin');
    await context.close();

    const elsewhere = await running.browser.newContext();
    const invitee = await elsewhere.newPage();
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: 'Welcome to Gatehouse' }).waitFor();
    await expectAccessible(invitee, 'set password');
    expect(await invitee.locator('main').textContent()).toContain('For the account of Nina New (nina@acme.test)');
    await invitee.getByLabel('New password', { exact: true }).fill('nina’s chosen password');
    await invitee.getByLabel('Repeat the new password').fill('nina’s other password');
    await invitee.getByRole('button', { name: 'Set password' }).click();
    await invitee.getByText('The two passwords differ.').waitFor();
    await invitee.getByLabel('New password', { exact: true }).fill('nina’s chosen password');
    await invitee.getByLabel('Repeat the new password').fill('nina’s chosen password');
    await invitee.getByRole('button', { name: 'Set password' }).click();
    await invitee.getByText('Your password is set.').waitFor();
    await invitee.getByRole('link', { name: 'Sign in' }).click();
    await invitee.waitForURL(/\/login/);
    await signInOnPage(invitee, 'nina@acme.test', 'nina’s chosen password');
    await invitee.waitForURL(`${running.server.url}/`);
    await invitee.getByText('nina@acme.test').first().waitFor();

    // The link worked once.
    await invitee.goto(link);
    await invitee.getByText('This link was already used. Each link works once.').waitFor();
    await elsewhere.close();
  });
});
