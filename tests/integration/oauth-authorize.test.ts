// docs/protocol.md §4–§5: the authorization request, PKCE, the resource indicator, and the consent screen's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, Browser, connect, decide, openConsent, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { DATABASES } from '../helpers/databases';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe.each(DATABASES)('authorization on the %s database', (kind) => {
  let server: RunningServer;
  let client: RegisteredClient;
  beforeAll(async () => {
    server = await startServer({ database: kind });
    client = await register(server.url, { client_name: 'Test App', redirect_uris: ['https://app.example/callback'] });
  });
  afterAll(async () => server?.stop());

  /** The error the authorization endpoint sends back to the client's redirect URI. */
  async function authorizationError(params: Record<string, string | undefined>): Promise<URLSearchParams> {
    const query = new URLSearchParams(
      Object.entries({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'https://app.example/callback',
        state: 's1',
        ...params,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const response = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: 'manual' });
    expect([302, 303]).toContain(response.status);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('https://app.example/callback');
    return location.searchParams;
  }

  const { challenge } = pkce();

  it('refuses a request without code_challenge', async () => {
    const error = await authorizationError({ code_challenge_method: 'S256' });
    expect(error.get('error')).toBe('invalid_request');
    expect(error.get('iss')).toBe(server.url);
  });

  it('refuses a code_challenge without code_challenge_method', async () => {
    const error = await authorizationError({ code_challenge: challenge });
    expect(error.get('error')).toBe('invalid_request');
  });

  it('refuses the plain PKCE method', async () => {
    const error = await authorizationError({ code_challenge: challenge, code_challenge_method: 'plain' });
    expect(error.get('error')).toBe('invalid_request');
  });

  it('refuses a resource other than PUBLIC_URL/mcp with invalid_target', async () => {
    const error = await authorizationError({
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://other.example/mcp',
    });
    expect(error.get('error')).toBe('invalid_target');
    expect(error.get('state')).toBe('s1');
  });

  // RFC 8707 §2 and RFC 3986 §6 (lib/oauth/resource.ts): PUBLIC_URL/mcp up to the case of scheme and host
  // and an explicit default port; nothing a parser would have to resolve. The token endpoint applies the
  // same rule (oauth-tokens.test.ts).
  it.each([
    ['a trailing slash', '/mcp/'],
    ['an empty query', '/mcp?'],
    ['a query', '/mcp?x=1'],
    ['dot segments', '/x/../mcp'],
    ['a percent-encoded path', '/%6Dcp'],
    ['a fragment', '/mcp#x'],
    ['another path case', '/MCP'],
  ])('refuses the resource with %s with invalid_target', async (_what, path) => {
    const error = await authorizationError({ code_challenge: challenge, code_challenge_method: 'S256', resource: `${server.url}${path}` });
    expect(error.get('error')).toBe('invalid_target');
  });

  it('refuses a second resource that differs from the first with invalid_target', async () => {
    const query = new URLSearchParams(authorizeUrl(server.url, { client, challenge, resource: `${server.url}/mcp` }).split('?')[1]);
    query.append('resource', `${server.url}/mcp/`);
    const response = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('accepts scheme and host in any case, stores the canonical resource, and issues code with iss (RFC 9207)', async () => {
    const spelled = `${server.url.replace('http://localhost', 'HTTP://LocalHost')}/mcp`;
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const { verifier, challenge: ownChallenge } = pkce();
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge: ownChallenge, resource: spelled }));
    const back = await decide(browser, form, { allow: true });
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(back.searchParams.get('iss')).toBe(server.url);
    // The code (and the grant) carry PUBLIC_URL/mcp itself: redeemed naming it, it works.
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: 'https://app.example/callback',
        client_id: client.client_id,
        code_verifier: verifier,
        resource: `${server.url}/mcp`,
      }).toString(),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('sends a signed-out person to sign in first, then back to the consent screen', async () => {
    const browser = new Browser(server.url);
    const { response, url } = await browser.follow(authorizeUrl(server.url, { client, challenge }));
    expect(response.status).toBe(200);
    expect(url).toMatch(/\/login\?callbackUrl=%2Fconsent%2F/);
  });

  it('shows the consent screen with who is signed in, the client, the redirect host and the resource', async () => {
    const browser = new Browser(server.url);
    await browser.signIn('owner@acme.test', TEST_DEMO_PASSWORD);
    const { html, orgIds, disabledOrgIds } = await openConsent(browser, authorizeUrl(server.url, { client, challenge, scope: 'claudeai' }));
    expect(html).toContain('Olivia Owner');
    expect(html).toContain('Not you? Switch account');
    expect(html).toContain('Test App');
    expect(html).toContain('Unverified');
    expect(html).toContain('app.example');
    // The resource by name, not as a URL.
    expect(html).toContain(`Gatehouse at ${new URL(server.url).host}`);
    // A client that asks for no MCP scope is offered both; unknown scopes are not shown.
    expect(html).toContain('Read your organization&#x27;s data');
    expect(html).toContain('Make changes on your behalf');
    expect(html).not.toContain('claudeai');
    // Initech's plan is inactive: shown, disabled, with the reason.
    expect(orgIds).toHaveLength(1);
    expect(disabledOrgIds).toHaveLength(1);
    expect(html).toMatch(new RegExp(`for="org-${disabledOrgIds[0]}"[^>]*>Initech`));
    expect(html).toContain('This organization&#x27;s plan is inactive.');
    expect(html).toContain('Allow');
    expect(html).toContain('Deny');
  });

  it('serves the authorization endpoint over GET only (no POST form to normalize around)', async () => {
    const response = await fetch(`${server.url}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', client_id: client.client_id }).toString(),
      redirect: 'manual',
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  it('tells a viewer that the app will not be able to run tools', async () => {
    const browser = new Browser(server.url);
    await browser.signIn('viewer@acme.test', TEST_DEMO_PASSWORD);
    const { html } = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
    expect(html).toContain('the app will not be able to run tools');
  });

  it('sends access_denied back when the person denies', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
    const back = await decide(browser, form, { allow: false });
    expect(back.origin + back.pathname).toBe('https://app.example/callback');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe(server.url);
  });

  it('requires at least one mcp scope ticked', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
    const back = await decide(browser, form, { allow: true, scopes: [] });
    expect(back.pathname).toBe(`/consent/${form.uid}`);
    expect(back.searchParams.get('error')).toBe('scope');
  });

  it('shows the consent screen without a message for an error code it does not know, Object.prototype names included', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
    for (const error of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nope']) {
      const response = await browser.jar.fetch(`${server.url}/consent/${form.uid}?error=${error}`);
      expect(response.status, error).toBe(200);
      const html = await response.text();
      expect(html, error).not.toContain('id="consent-error"');
      expect(html, error).toContain('name="csrf"');
    }
    const known = await (await browser.jar.fetch(`${server.url}/consent/${form.uid}?error=scope`)).text();
    expect(known).toContain('Tick at least one of the boxes below');
  });

  it('refuses a form posted from another origin or without the form token', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
    const post = (origin: string, csrf: string) =>
      browser.jar.fetch(`${server.url}/consent/${form.uid}/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: new URLSearchParams({ csrf, decision: 'allow', org: form.orgIds[0]!, scope: 'mcp:read' }).toString(),
      });
    expect((await post('https://evil.example', form.csrf)).status).toBe(403);
    expect((await post(server.url, 'forged')).status).toBe(403);
  });

  it('shows an expired-request page for an unknown consent request', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const response = await browser.jar.fetch(`${server.url}/consent/no-such-request`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('This request has expired');
    expect(html).toContain('start connecting again');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('accepts a cursor:// redirect and a loopback redirect on another port than registered', async () => {
    const native = await register(server.url, {
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'http://localhost:8787/callback'],
    });
    const viaScheme = await connect(server.url, native, member);
    expect(viaScheme.grantRedirect.protocol).toBe('cursor:');
    const viaLoopback = await connect(server.url, native, member, { redirectUri: 'http://localhost:40321/callback' });
    expect(viaLoopback.grantRedirect.host).toBe('localhost:40321');
  });

  it('gives the access token only the scopes the person ticked', async () => {
    const { tokens } = await connect(server.url, client, member, { scopes: ['mcp:read'] });
    expect(tokens.scope).toBe('mcp:read');
  });

  it.each(['query', 'fragment', 'form_post'])('delivers the code with response_mode=%s, as discovery advertises', async (mode) => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const form = await openConsent(browser, `${authorizeUrl(server.url, { client, challenge: pkce().challenge })}&response_mode=${mode}`);
    const body = new URLSearchParams({ csrf: form.csrf, decision: 'allow', org: form.orgIds[0]!, scope: 'mcp:read' });
    const { response, url } = await browser.follow(`${server.url}/consent/${form.uid}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: body.toString(),
    });
    if (mode === 'form_post') {
      // RFC 8414 response_modes_supported; OAuth 2.0 Form Post Response Mode: a page that posts the code.
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toMatch(/<form[^>]*action="https:\/\/app\.example\/callback"/);
      expect(html).toMatch(/name="code" value="[^"]+"/);
      return;
    }
    const back = new URL(url);
    expect(back.origin + back.pathname).toBe('https://app.example/callback');
    const params = mode === 'query' ? back.searchParams : new URLSearchParams(back.hash.slice(1));
    expect(params.get('code')).toBeTruthy();
    expect(params.get('iss')).toBe(server.url);
  });
});
