// Cross-site scripting through what a client chooses: anyone can register a client, so its name, its
// URIs and the scopes it asks for are attacker-controlled. In Chromium, every page that shows them — the
// consent screen, the provider's error page, the org and instance consoles, the person's connected apps —
// must show them as text: no dialog, no element or handler injected, no javascript: or data: link.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cspViolations, HAS_CHROMIUM, serverAndBrowser } from '../helpers/browser';
import { approveInBrowser, signInOnPage } from '../helpers/consent-browser';
import { authorizeUrl, pkce, register } from '../helpers/oauth';
import { TEST_DEMO_PASSWORD } from '../helpers/server';

const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const REDIRECT = 'https://xss-app.example/callback';
const NAME = `<script>window.__xss='name'</script>"><img src=x onerror="window.__xss='img';alert(1)"><svg onload=alert(2)>`;
const SCOPE = `mcp:read mcp:write <script>window.__xss='scope'</script> "><img/src=x/onerror=alert(3)>`;
const URI_FIELDS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const;
const DANGEROUS_URIS = ['javascript:alert(document.domain)', 'data:text/html,<script>alert(1)</script>', 'JaVaScRiPt:alert(1)'];

describe.runIf(HAS_CHROMIUM)('client-controlled text in Chromium', () => {
  const running = serverAndBrowser();

  /** Dialogs that fired while the page was open. */
  function watch(page: Page): string[] {
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    return dialogs;
  }

  /** Everything on the page that would be an injection if present. */
  async function injected(page: Page) {
    return page.evaluate(() => ({
      ran: (window as unknown as { __xss?: string }).__xss ?? null,
      handlers: [...document.querySelectorAll('[onerror], [onload], [onclick], [onmouseover]')].map((element) => element.outerHTML),
      images: [...document.querySelectorAll('img[src="x"], img[src$="/x"]')].map((element) => element.outerHTML),
      scripts: [...document.querySelectorAll('script')].filter((script) => script.textContent?.startsWith('window.__xss')).map((script) => script.outerHTML),
      links: [...document.querySelectorAll('[href], [src], [action], [formaction]')]
        .map((element) => ['href', 'src', 'action', 'formaction'].map((name) => element.getAttribute(name) ?? '').join(' '))
        // React marks its server-action forms with this inert placeholder action; nothing else may appear.
        .map((value) => value.replace(`javascript:throw new Error('React form unexpectedly submitted.')`, ''))
        .filter((value) => /(^|\s)\s*(javascript|data|vbscript):/i.test(value)),
    }));
  }

  async function expectInert(page: Page, dialogs: string[], where: string) {
    // Give an injected handler (an image's onerror) time to fire.
    await page.waitForLoadState('load');
    await page.waitForTimeout(150);
    expect(await injected(page), where).toEqual({ ran: null, handlers: [], images: [], scripts: [], links: [] });
    expect(dialogs, where).toEqual([]);
  }

  it('refuses javascript: and data: URIs in client metadata at registration', async () => {
    for (const field of URI_FIELDS) {
      for (const uri of DANGEROUS_URIS) {
        const response = await fetch(`${running.server.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Links', redirect_uris: [REDIRECT], [field]: uri }),
        });
        expect(response.status, `${field}: ${uri}`).toBe(400);
        expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
      }
    }
  });

  it('shows a hostile client name, URIs and scopes as text on the consent screen, the consoles and the connected-apps page', async () => {
    const { url } = running.server;
    // What registration accepts: an https URI can still carry markup.
    const hostileUri = `https://xss-app.example/"><script>window.__xss='uri'</script>`;
    const client = await register(url, {
      client_name: NAME,
      redirect_uris: [REDIRECT],
      ...Object.fromEntries(URI_FIELDS.map((field) => [field, hostileUri])),
    });
    expect(client.client_name).toBe(NAME);

    const context = await running.browser.newContext();
    const consent = authorizeUrl(url, { client, challenge: pkce().challenge, scope: SCOPE });
    const callback = await approveInBrowser(context, consent, REDIRECT, owner, async (page) => {
      const dialogs = watch(page);
      await page.reload();
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      await expectInert(page, dialogs, 'consent screen');
      await expect(page.getByTestId('client-name').textContent()).resolves.toBe(NAME);
      // Unknown scopes are not shown at all; the MCP ones are.
      expect(await page.locator('input[name="scope"]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual(['mcp:read', 'mcp:write']);
    });
    expect(callback.searchParams.get('code')).toBeTruthy();

    const page = await context.newPage();
    const dialogs = watch(page);
    for (const [path, showsName] of [
      ['/admin/acme/clients', true],
      ['/admin/acme/connected-apps', true],
      ['/admin/acme/audit', false],
      ['/admin/acme', false],
      [`/admin/instance?q=${encodeURIComponent('<script>')}`, true],
      ['/settings/connected-apps', true],
    ] as const) {
      await page.goto(`${url}${path}`);
      expect(new URL(page.url()).pathname, path).toBe(path.split('?')[0]);
      await expectInert(page, dialogs, path);
      // The name did reach the page, as text a person sees (innerText, not textContent, on purpose).
      // biome-ignore lint/performance/useDomNodeTextContent: what is rendered visibly is the point
      if (showsName) expect(await page.locator('body').innerText(), path).toContain(`<script>window.__xss='name'</script>`);
    }
    await context.close();
  });

  it('shows markup in a refused authorization request as text on the error page', async () => {
    const { url } = running.server;
    const client = await register(url, { client_name: 'Plain', redirect_uris: [REDIRECT] });
    const context = await running.browser.newContext();
    const page = await context.newPage();
    const dialogs = watch(page);
    const hostile = authorizeUrl(url, {
      client,
      challenge: pkce().challenge,
      redirectUri: `https://evil.example/"><script>window.__xss='error'</script><img src=x onerror=alert(4)>`,
      extra: { state: `"><script>window.__xss='state'</script>` },
    });
    const response = await page.goto(hostile);
    expect(response?.status()).toBe(400);
    await expectInert(page, dialogs, 'authorization error page');

    await page.goto(`${url}/login?callbackUrl=${encodeURIComponent('javascript:alert(5)')}&error=${encodeURIComponent('<img src=x onerror=alert(6)>')}`);
    await expectInert(page, dialogs, 'sign-in page');
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForLoadState('load');
    expect(new URL(page.url()).origin).toBe(url);
    await expectInert(page, dialogs, 'after sign-in');
    await context.close();
  });

  // The second line of defence: if markup ever reached a page unescaped, the page's policy would still
  // refuse to run it. The real sign-in page, with its real headers, gets an injected inline script and an
  // injected external one: neither runs, while the page's own scripts (with its nonce) still do.
  it('refuses to run scripts injected into a real page: only the nonce of the response runs', async () => {
    const { url } = running.server;
    const context = await running.browser.newContext();
    const page = await context.newPage();
    await page.route(`${url}/login`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace('<body', `<script>window.__injected='inline'</script><script src="${url}/_next/static/injected.js"></script><body`);
      await route.fulfill({ response, body: html });
    });
    await page.goto(`${url}/login`);
    await page.getByLabel('Email').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __injected?: string }).__injected)).toBeUndefined();
    const violations = await cspViolations(page);
    // Exactly the two injected scripts were refused; none of the page's own (inline ones included) was.
    expect(
      violations.filter((violation) => violation.endsWith('inline')),
      violations.join('\n'),
    ).toHaveLength(1);
    expect(
      violations.every((violation) => violation.startsWith('script-src') && (violation.endsWith('inline') || violation.endsWith('/injected.js'))),
      violations.join('\n'),
    ).toBe(true);
    // And the page works.
    await signInOnPage(page, owner.email, owner.password);
    await page.waitForURL(`${url}/`);
    await context.close();
  });
});
