// Two people in turn in one browser: the second never approves as the first (docs/protocol.md §5), and signing out
// of Gatehouse ends the OAuth provider's session too.
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser, signInOnPage } from '../helpers/consent-browser';
import { authorizeUrl, pkce, register, tokenRequest, type RegisteredClient } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const REDIRECT = 'https://switch.example/callback';

function subjectOf(idToken: string): string {
  return JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8')).sub as string;
}

describe.runIf(HAS_CHROMIUM)('people switching in one browser', () => {
  const running = serverAndBrowser();
  let client: RegisteredClient;
  beforeAll(async () => {
    client = await register(running.server.url, { client_name: 'Switch App', redirect_uris: [REDIRECT] });
  });

  async function approveAs(context: Parameters<typeof approveInBrowser>[0], person: typeof owner) {
    const { verifier, challenge } = pkce();
    let shownAs = '';
    const callback = await approveInBrowser(context, authorizeUrl(running.server.url, { client, challenge, scope: 'openid mcp:read' }), REDIRECT, person, async (page) => {
      shownAs = (await page.getByText('Signed in as').textContent()) ?? '';
    });
    const { body } = await tokenRequest(running.server.url, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    return { shownAs, subject: subjectOf(body.id_token!) };
  }

  it('approves as the person signed in to Gatehouse, even when the provider remembers someone else', async () => {
    const context = await running.browser.newContext();
    const first = await approveAs(context, owner);
    expect(first.shownAs).toContain('owner@acme.test');
    expect((await context.cookies()).some((cookie) => cookie.name === '_session')).toBe(true);

    // Olivia's Gatehouse session ends without a sign-out (it expired); the provider still remembers her.
    await context.clearCookies({ name: /next-auth\.session-token/ });
    const page = await context.newPage();
    await page.goto(`${running.server.url}/login`);
    await signInOnPage(page, member.email, member.password);
    await page.getByRole('heading', { name: 'Signed in as Max Member' }).waitFor();
    await page.close();

    const second = await approveAs(context, member);
    expect(second.shownAs).toContain('member@acme.test');
    expect(second.subject).not.toBe(first.subject);
    await context.close();
  });

  it('ends the provider session when the person signs out', async () => {
    const context = await running.browser.newContext();
    await approveAs(context, owner);
    expect((await context.cookies()).some((cookie) => cookie.name === '_session')).toBe(true);
    const page = await context.newPage();
    await page.goto(`${running.server.url}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${running.server.url}/login`);
    expect((await context.cookies()).some((cookie) => cookie.name === '_session')).toBe(false);

    // The next authorization asks who is there instead of reusing anyone.
    const { challenge } = pkce();
    await page.goto(authorizeUrl(running.server.url, { client, challenge }));
    await page.waitForURL(/\/login\?callbackUrl=/);
    await context.close();
  });
});
