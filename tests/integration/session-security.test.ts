// Sessions and sign-in under attack: a session value planted before sign-in is never the one that gets
// authenticated (session fixation), a consent started in one browser cannot be approved from another,
// signing out makes the old cookie worthless, and password guessing is throttled per client address —
// an address a client merely claims in X-Forwarded-For changes nothing (behind a trusted proxy, only the
// hop it appended counts: unit/client-address.test.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFrom } from '../helpers/from-address';
import { authorizeUrl, Browser, connect, decide, openConsent, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { CookieJar, signIn, signOut } from '../helpers/session';

const SESSION_COOKIE = 'next-auth.session-token';
const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD, name: 'Max Member' };
const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD, name: 'Olivia Owner' };

let server: RunningServer;
let client: RegisteredClient;
beforeAll(async () => {
  server = await startServer({ database: 'embedded' });
  client = await register(server.url, { client_name: 'Fixation App', redirect_uris: ['https://app.example/callback'] });
});
afterAll(async () => server?.stop());

/** Who a cookie header is signed in as: the name on the home page, or null when sent to /login. */
async function whoIs(cookie: string): Promise<string | null> {
  const response = await fetch(`${server.url}/`, { headers: { cookie }, redirect: 'manual' });
  if (response.status === 307) return null;
  expect(response.status).toBe(200);
  const html = await response.text();
  return [member.name, owner.name].find((name) => html.includes(name)) ?? 'someone else';
}

describe('session fixation', () => {
  it('replaces a made-up session cookie planted before sign-in, and the planted value signs no one in', async () => {
    const planted = `planted-${randomBytes(16).toString('hex')}`;
    const jar = new CookieJar();
    jar.set(SESSION_COOKIE, planted);
    const { response } = await signIn(server.url, member.email, member.password, { jar });
    expect(response.status).toBe(200);
    const [, issued] = jar.entries().find(([name]) => name === SESSION_COOKIE)!;
    expect(issued).not.toBe(planted);
    expect(await whoIs(`${SESSION_COOKIE}=${issued}`)).toBe(member.name);
    expect(await whoIs(`${SESSION_COOKIE}=${planted}`)).toBeNull();
  });

  it('replaces an attacker’s own valid session planted in the victim’s browser: the attacker’s cookie never becomes the victim’s', async () => {
    const attacker = (await signIn(server.url, owner.email, owner.password)).jar;
    const [, attackerToken] = attacker.entries().find(([name]) => name === SESSION_COOKIE)!;

    const victim = new CookieJar();
    for (const [name, value] of attacker.entries()) victim.set(name, value);
    expect((await signIn(server.url, member.email, member.password, { jar: victim })).response.status).toBe(200);
    const [, victimToken] = victim.entries().find(([name]) => name === SESSION_COOKIE)!;

    expect(victimToken).not.toBe(attackerToken);
    expect(await whoIs(`${SESSION_COOKIE}=${victimToken}`)).toBe(member.name);
    expect(await whoIs(`${SESSION_COOKIE}=${attackerToken}`)).toBe(owner.name);
  });

  it('gives a provider session cookie planted before the consent flow a new identifier when the person approves, and the planted one authorizes nothing', async () => {
    // The attacker goes through a flow of their own to hold a genuine, signed provider session.
    const { browser: attacker } = await connect(server.url, client, owner);
    const plantedSession = attacker.jar.entries().filter(([name]) => name.startsWith('_session'));
    expect(plantedSession.map(([name]) => name).sort()).toEqual(['_session', '_session.sig']);

    const victim = new Browser(server.url);
    for (const [name, value] of plantedSession) victim.jar.set(name, value);
    await victim.signIn(member.email, member.password);
    const { challenge } = pkce();
    const form = await openConsent(victim, authorizeUrl(server.url, { client, challenge }));
    const back = await decide(victim, form, { allow: true });
    expect(back.searchParams.get('code')).toBeTruthy();
    const after = new Map(victim.jar.entries());
    expect(after.get('_session')).toBeTruthy();
    expect(after.get('_session')).not.toBe(new Map(plantedSession).get('_session'));

    // With only the planted provider cookies, a silent request (prompt=none) yields no code, and an
    // interactive one ends on the sign-in page.
    const replay = new Browser(server.url);
    for (const [name, value] of plantedSession) replay.jar.set(name, value);
    const silent = await replay.follow(authorizeUrl(server.url, { client, challenge: pkce().challenge, extra: { prompt: 'none' } }));
    const silentTarget = new URL(silent.url);
    expect(silentTarget.origin).toBe('https://app.example');
    expect(silentTarget.searchParams.get('code')).toBeNull();
    expect(silentTarget.searchParams.get('error')).toMatch(/_required$/);
    const interactive = await replay.follow(authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    expect(interactive.url).toMatch(/\/login\?callbackUrl=/);
  });

  it('refuses to approve a consent request started in another browser, even with a valid form token', async () => {
    // The attacker starts the request (holding its interaction cookies) and sends the victim the link.
    const lure = await register(server.url, { client_name: 'Lure App', redirect_uris: ['https://lure.example/callback'] });
    const attacker = new Browser(server.url);
    const started = await attacker.jar.fetch(authorizeUrl(server.url, { client: lure, challenge: pkce().challenge }));
    const consentPath = /\/consent\/[^/?]+/.exec(started.headers.get('location') ?? '')?.[0];
    expect(consentPath, started.headers.get('location') ?? '').toBeDefined();
    expect(attacker.jar.has('_interaction')).toBe(true);

    const victim = new Browser(server.url);
    await victim.signIn(member.email, member.password);
    const page = await victim.jar.fetch(`${server.url}${consentPath}`);
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    const form = { uid: consentPath!.split('/').pop()!, csrf: csrf ?? '', orgIds: [], disabledOrgIds: [], html };
    const back = await decide(victim, { ...form, orgIds: [/name="org" value="([^"]+)"/.exec(html)?.[1] ?? ''] }, { allow: true });
    expect(back.origin).toBe(server.url);
    expect(back.searchParams.get('code')).toBeNull();
    const grants = await victim.jar.fetch(`${server.url}/settings/connected-apps`);
    const listed = await grants.text();
    expect(grants.status).toBe(200);
    expect(listed).toContain('Fixation App'); // connected in the test above: the page does list apps
    expect(listed).not.toContain('Lure App');
  });
});

describe('signing out', () => {
  it('makes the session cookie worthless, even when replayed by someone who copied it', async () => {
    const { jar } = await signIn(server.url, member.email, member.password);
    const [, token] = jar.entries().find(([name]) => name === SESSION_COOKIE)!;
    expect(await whoIs(`${SESSION_COOKIE}=${token}`)).toBe(member.name);
    expect((await signOut(server.url, jar)).status).toBe(200);
    expect(await whoIs(`${SESSION_COOKIE}=${token}`)).toBeNull();
    // Nor does the copied cookie approve a consent request.
    const copy = new Browser(server.url);
    copy.jar.set(SESSION_COOKIE, token);
    const { url } = await copy.follow(authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    expect(url).toMatch(/\/login\?callbackUrl=/);
  });
});

// next-auth remembers where to go after signing in in a cookie that a sibling subdomain can set, and
// reads it from `callbackUrl` parameters anyone can write: a broken or foreign value is ignored (the home
// page is the way back), never a 500 that locks everyone with that cookie out.
describe('foreign or broken callback URLs', () => {
  const BROKEN = ['x', 'http://[', '%zz', 'javascript:alert(1)', 'https://evil.example/'];
  const PAGES = ['/', '/login', '/admin', '/settings/account', '/api/auth/session', '/api/auth/csrf', '/api/auth/providers', '/api/auth/signin', '/api/auth/signout'];

  /** Every next-auth endpoint and the pages that read the session, with `cookie` and `?callbackUrl=value`. */
  async function expectNoServerError(baseUrl: string, cookieName: string, value: string, jar: CookieJar | null) {
    const cookie = [jar?.header(), `${cookieName}=${encodeURIComponent(value)}`].filter(Boolean).join('; ');
    for (const path of PAGES) {
      const withCookie = await fetch(`${baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
      expect(withCookie.status, `${path} with cookie ${value}`).toBeLessThan(500);
      const withParam = await fetch(`${baseUrl}${path}?callbackUrl=${encodeURIComponent(value)}`, { headers: jar ? { cookie: jar.header() } : {}, redirect: 'manual' });
      expect(withParam.status, `${path}?callbackUrl=${value}`).toBeLessThan(500);
    }
    const { csrfToken } = (await (await fetch(`${baseUrl}/api/auth/csrf`, { headers: jar ? { cookie: jar.header() } : {} })).json()) as { csrfToken: string };
    for (const path of ['/api/auth/signin/credentials', '/api/auth/signout', '/api/auth/_log']) {
      for (const [where, url, body] of [
        ['query', `${baseUrl}${path}?callbackUrl=${encodeURIComponent(value)}`, new URLSearchParams({ csrfToken })],
        ['body', `${baseUrl}${path}`, new URLSearchParams({ csrfToken, callbackUrl: value })],
        ['cookie', `${baseUrl}${path}`, new URLSearchParams({ csrfToken })],
      ] as const) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(where === 'cookie' ? { cookie } : jar ? { cookie: jar.header() } : {}) },
          body: body.toString(),
          redirect: 'manual',
        });
        expect(response.status, `POST ${path} with ${value} in the ${where}`).toBeLessThan(500);
      }
    }
  }

  /** Signs in with `value` as the callback URL in the cookie, the query or the body; where it leads. */
  async function signInLeadsTo(baseUrl: string, cookieName: string, value: string, where: 'cookie' | 'query' | 'body'): Promise<string> {
    const jar = new CookieJar();
    if (where === 'cookie') jar.set(cookieName, encodeURIComponent(value));
    const { csrfToken } = (await (await jar.fetch(`${baseUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
    const query = where === 'query' ? `?callbackUrl=${encodeURIComponent(value)}` : '';
    const response = await jar.fetch(`${baseUrl}/api/auth/callback/credentials${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, email: member.email, password: member.password, json: 'true', ...(where === 'body' ? { callbackUrl: value } : {}) }).toString(),
    });
    expect(response.status, `sign-in with ${value} in the ${where}`).toBe(200);
    const { url } = (await response.json()) as { url: string };
    expect(await whoIsJar(jar), `signed in with ${value} in the ${where}`).toBe(member.name);
    return url;
  }

  async function whoIsJar(jar: CookieJar) {
    return whoIs(
      jar
        .entries()
        .filter(([name]) => name.includes('session-token'))
        .map(([name, value]) => `${name}=${value}`)
        .join('; '),
    );
  }

  it.each(BROKEN)('ignores the callback URL %s in the next-auth cookie or a parameter: no 500, signed out or in', async (value) => {
    await expectNoServerError(server.url, 'next-auth.callback-url', value, null);
    const { jar } = await signIn(server.url, member.email, member.password);
    await expectNoServerError(server.url, 'next-auth.callback-url', value, jar);
    for (const where of ['cookie', 'query', 'body'] as const) {
      expect(new URL(await signInLeadsTo(server.url, 'next-auth.callback-url', value, where)).href).toBe(`${server.url}/`);
    }
  });

  it('still goes back to a path of its own after sign-in (the control for the refusals above)', async () => {
    for (const where of ['cookie', 'query', 'body'] as const) {
      expect(await signInLeadsTo(server.url, 'next-auth.callback-url', '/settings/account?tab=1', where)).toBe(`${server.url}/settings/account?tab=1`);
    }
  });

  it('ignores a broken __Secure- callback cookie when PUBLIC_URL is https', async () => {
    const secure = await startServer({ database: 'embedded', env: { PUBLIC_URL: 'https://gatehouse.example', AUTH_SECRET: randomBytes(32).toString('hex') } });
    try {
      await expectNoServerError(secure.url, '__Secure-next-auth.callback-url', 'x', null);
      await expectNoServerError(secure.url, '__Secure-next-auth.callback-url', 'http://[', null);
    } finally {
      await secure.stop();
    }
  });
});

// Last: these spend this address's budget of failed sign-ins.
describe('password guessing across many accounts from one address', () => {
  const PER_ADDRESS = 30;
  // Each attempt costs a bcrypt comparison (cost 12) on purpose; a few run at once.
  const SLOW = 180_000;

  async function inBatches<T>(count: number, attempt: (index: number) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    for (let start = 0; start < count; start += 6) {
      results.push(...(await Promise.all(Array.from({ length: Math.min(6, count - start) }, (_, offset) => attempt(start + offset)))));
    }
    return results;
  }

  it(
    'stops an address after 30 failures a minute, whatever X-Forwarded-For it claims; refusals look alike for known and unknown accounts',
    async () => {
      const results = await inBatches(PER_ADDRESS, async (attempt) => {
        // A fresh claimed address each time, and the header Gatehouse stamps itself: neither is believed.
        const headers = { 'x-forwarded-for': `198.51.100.${attempt + 1}`, 'x-gatehouse-peer-address': `203.0.113.${attempt + 1}` };
        // Wrong passwords for a real account (fewer than its own lockout) and unknown emails, interleaved.
        const email = attempt % 2 === 0 && attempt < 18 ? 'viewer@acme.test' : `guess-${attempt}@acme.test`;
        const { response } = await signIn(server.url, email, `wrong ${attempt}`, { headers });
        return { status: response.status, body: await response.text() };
      });
      expect(results.map((result) => result.status)).toEqual(Array(PER_ADDRESS).fill(401));
      expect(new Set(results.map((result) => result.body)).size).toBe(1);

      const rightPassword = await signIn(server.url, member.email, member.password, { headers: { 'x-forwarded-for': '192.0.2.77' } });
      expect(rightPassword.response.status).toBe(401);
      expect(rightPassword.jar.has(SESSION_COOKIE)).toBe(false);
      const locked = await rightPassword.response.text();
      expect(locked).toContain('TooManyAttempts');
      const unknown = await signIn(server.url, 'nobody-at-all@acme.test', 'anything');
      expect(await unknown.response.text()).toBe(locked);
    },
    SLOW,
  );
});

// Listening on `::` (HOST=::), IPv4 clients arrive as IPv4-mapped IPv6 addresses (::ffff:127.0.0.1):
// each is still its own client, never one IPv6 /64 shared by every IPv4 address (nor with ::1).
describe('password guessing on a dual-stack listener (HOST=::)', () => {
  let dualStack: RunningServer;
  beforeAll(async () => {
    dualStack = await startServer({ database: 'embedded', env: { HOST: '::', HOSTNAME: '::' } });
  });
  afterAll(async () => dualStack?.stop());

  it('counts failures per IPv4 address: 30 from 127.0.0.1 lock 127.0.0.1 out, not 127.0.0.2 or ::1', async () => {
    const from = (address: string) => ({ jar: new CookieJar(fetchFrom(address)) });
    for (let start = 0; start < 30; start += 6) {
      const statuses = await Promise.all(
        Array.from({ length: 6 }, async (_, offset) => (await signIn(dualStack.url, `guess-${start + offset}@acme.test`, 'wrong', from('127.0.0.1'))).response.status),
      );
      expect(statuses).toEqual(Array(6).fill(401));
    }
    const lockedOut = await signIn(dualStack.url, member.email, member.password, from('127.0.0.1'));
    expect(await lockedOut.response.text()).toContain('TooManyAttempts');

    for (const address of ['127.0.0.2', '::1']) {
      const { response, jar } = await signIn(dualStack.url, member.email, member.password, from(address));
      expect(response.status, `the right password from ${address}`).toBe(200);
      expect(jar.has(SESSION_COOKIE)).toBe(true);
    }
  }, 180_000);
});
