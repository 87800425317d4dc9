// Security headers and cookie flags (issue: reliability and security, item 5): every HTML page a person
// can reach — signed out, signed in, in the console, the provider's own error page, a 404 — and the JSON
// endpoints carry the same protective headers; the sign-in cookie is HttpOnly and SameSite, and not sent
// to scripts or other sites. (Secure behind https: integration/startup.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { signIn, type CookieJar } from '../helpers/session';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

function expectProtectiveHeaders(response: Response, what: string): void {
  const header = (name: string) => response.headers.get(name) ?? '';
  expect(header('x-content-type-options'), what).toBe('nosniff');
  expect(header('referrer-policy'), what).toBe('same-origin');
  expect(header('x-frame-options'), what).toBe('DENY');
  expect(header('strict-transport-security'), what).toMatch(/^max-age=\d{7,}/);
  const policy = header('content-security-policy');
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"]) {
    expect(policy, `${what}: ${directive}`).toContain(directive);
  }
  expect(policy, what).not.toMatch(/unsafe-eval/);
}

describe.each([DATABASES.at(-1)!])('security headers (%s database)', (database) => {
  let server: RunningServer;
  let owner: CookieJar;
  let setCookies: string[];

  beforeAll(async () => {
    server = await startServer({ database });
    const signedIn = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    owner = signedIn.jar;
    setCookies = signedIn.response.headers.getSetCookie();
  });
  afterAll(async () => server?.stop());

  it('sends them on every HTML page, signed out and signed in, and on the provider’s own pages', async () => {
    const anonymous = ['/login', '/set-password/not-a-real-link', '/no-such-page', '/oauth/authorize?client_id=unknown&response_type=code'];
    for (const path of anonymous) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(response.headers.get('content-type') ?? '', path).toContain('text/html');
      expectProtectiveHeaders(response, path);
    }
    for (const path of ['/', '/settings/connected-apps', '/settings/account', '/admin/acme', '/admin/acme/members', '/admin/instance/people']) {
      const response = await owner.fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expectProtectiveHeaders(response, path);
    }
  });

  // Pages allow only scripts that carry the response's own nonce: markup injected into a page cannot run
  // a script, inline or from elsewhere. Every script tag the framework writes carries it.
  it('gives every page a script nonce of its own, on every script tag, and no inline scripts without it', async () => {
    const nonces = new Set<string>();
    const pages: [string, CookieJar | null][] = [
      ['/login', null],
      ['/no-such-page', null],
      ['/set-password/not-a-real-link', null],
      ['/', owner],
      ['/admin/acme', owner],
      ['/settings/account', owner],
      ['/login', null],
    ];
    for (const [path, jar] of pages) {
      const response = jar ? await jar.fetch(`${server.url}${path}`) : await fetch(`${server.url}${path}`);
      const policy = response.headers.get('content-security-policy') ?? '';
      const scriptSrc =
        policy
          .split(';')
          .map((directive) => directive.trim())
          .find((directive) => directive.startsWith('script-src')) ?? '';
      const nonce = /'nonce-([A-Za-z0-9+/=]{22,})'/.exec(scriptSrc)?.[1];
      expect(nonce, `${path}: ${policy}`).toBeDefined();
      expect(scriptSrc, path).toContain("'strict-dynamic'");
      expect(scriptSrc, path).not.toContain('unsafe-inline');
      expect(policy.match(/script-src/g), `${path}: one policy, not the fixed one beside it`).toHaveLength(1);
      nonces.add(nonce!);
      const html = await response.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const script of scripts) expect(script, path).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size, 'a fresh nonce per response').toBe(pages.length);
  });

  it('sends them on JSON endpoints and redirects too', async () => {
    const responses: [string, Response][] = [
      ['/mcp', await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })],
      ['/oauth/token', await fetch(`${server.url}/oauth/token`, { method: 'POST', body: 'grant_type=nonsense' })],
      ['/.well-known/oauth-authorization-server', await fetch(`${server.url}/.well-known/oauth-authorization-server`)],
      ['/admin (signed out)', await fetch(`${server.url}/admin/acme`, { redirect: 'manual' })],
    ];
    for (const [what, response] of responses) expectProtectiveHeaders(response, what);
  });

  it('sets the sign-in cookie HttpOnly, SameSite=Lax, for the whole site, never readable by scripts', async () => {
    const session = setCookies.find((cookie) => cookie.startsWith('next-auth.session-token=') || cookie.startsWith('__Secure-next-auth.session-token='));
    expect(session, setCookies.join('\n')).toBeDefined();
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    expect(session).toMatch(/;\s*Path=\//i);
    // Every cookie Gatehouse sets is HttpOnly, the CSRF one included.
    for (const cookie of setCookies) expect(cookie, cookie.split('=')[0]).toMatch(/;\s*HttpOnly/i);
  });
});
