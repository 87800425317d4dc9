// The instance admin in Chromium: disables one client and deletes another from the list of every client
// of the installation, each after a confirmation; the apps' very next /mcp calls are refused.
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

describe.runIf(HAS_CHROMIUM)('Instance admin: clients', () => {
  const running = serverAndBrowser();

  it('disables a client and deletes another after confirmation; their next /mcp calls get 401', async () => {
    const { url } = running.server;
    const disabled = await connect(url, await register(url, { client_name: 'Doomed CLI', redirect_uris: ['https://doomed.example/cb'] }), member);
    const deleted = await connect(url, await register(url, { client_name: 'Gone Agent', redirect_uris: ['https://gone.example/cb'] }), member);
    const kept = await connect(url, await register(url, { client_name: 'Kept Tool', redirect_uris: ['https://kept.example/cb'] }), member);
    for (const { tokens } of [disabled, deleted, kept]) expect((await postMcp(url, tokens.access_token, rpc('ping'))).status).toBe(200);

    const context = await running.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}/admin/instance`);
    await page.waitForURL(/\/login/);
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${url}/admin/instance`);
    const table = page.getByRole('table', { name: 'Clients of the installation' });
    await table.waitFor();
    // Next.js streams a dynamic page's metadata: the title may arrive just after the table.
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe('Clients · Instance admin · Gatehouse');
    // A registration's row (data cells), under its app's heading row.
    const row = (name: string) =>
      table
        .getByRole('row')
        .filter({ hasText: name })
        .filter({ has: page.getByRole('cell'), hasNot: page.getByRole('rowheader') });
    expect(await table.getByRole('rowheader').filter({ hasText: 'Doomed CLI' }).textContent()).toMatch(/Doomed CLI.*1 registration.*redirects to doomed\.example/);
    expect(await row('Doomed CLI').textContent()).toMatch(/Self-registered.*doomed\.example.*Acme/s);
    await expectAccessible(page, 'instance clients');

    await row('Doomed CLI').getByRole('button', { name: 'Disable Doomed CLI' }).click();
    const disableDialog = page.getByRole('dialog', { name: 'Disable Doomed CLI?' });
    await disableDialog.waitFor();
    await disableDialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'Doomed CLI is disabled.' }).waitFor();
    await row('Doomed CLI').getByText('Disabled', { exact: true }).waitFor();
    await row('Doomed CLI').getByRole('button', { name: 'Enable Doomed CLI' }).waitFor();

    const refused = await postMcp(url, disabled.tokens.access_token, rpc('ping'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');

    await row('Gone Agent').getByRole('button', { name: 'Delete Gone Agent' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete Gone Agent?' });
    await deleteDialog.waitFor();
    expect(await deleteDialog.textContent()).toMatch(/1 connection in every organization is revoked/);
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Gone Agent was deleted; 1 connection revoked.' }).waitFor();
    await row('Gone Agent').waitFor({ state: 'detached' });

    // The other instance pages pass the same accessibility scan.
    for (const [path, name] of [
      ['/organizations', 'instance-organizations'],
      ['/people', 'instance-people'],
      ['/keys', 'instance-keys'],
    ]) {
      await page.goto(`${url}/admin/instance${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectAccessible(page, `instance ${path}`);
      await screenshot(page, name!);
    }
    await context.close();

    expect((await postMcp(url, deleted.tokens.access_token, rpc('ping'))).status).toBe(401);
    expect((await postMcp(url, kept.tokens.access_token, rpc('ping'))).status).toBe(200);
  });
});
