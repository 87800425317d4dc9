// Open redirects through redirect_uri (docs/protocol.md §3–§4): the authorization endpoint compares the redirect URI
// with the registered ones exactly, so that no spelling of an attacker's address — a longer path, another
// host that reads like the right one, encoded or doubled slashes, userinfo — gets a browser sent there,
// not even with an error. Registration refuses the URIs that are dangerous in themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { startServer, type RunningServer } from '../helpers/server';

const REGISTERED = 'https://app.example/callback';
const LOOPBACK = 'http://127.0.0.1/callback';

let server: RunningServer;
let web: RegisteredClient;
let native: RegisteredClient;
beforeAll(async () => {
  server = await startServer({ database: 'embedded', env: { REGISTRATION_RATE_LIMIT: '1000' } });
  web = await register(server.url, { client_name: 'Web App', redirect_uris: [REGISTERED] });
  native = await register(server.url, { client_name: 'Native App', redirect_uris: [LOOPBACK] });
});
afterAll(async () => server?.stop());

async function authorize(client: RegisteredClient, redirectUri: string) {
  return fetch(authorizeUrl(server.url, { client, challenge: pkce().challenge, redirectUri }), { redirect: 'manual' });
}

/** The response either stays on Gatehouse or is an error page; it never sends the browser elsewhere. */
function expectNoForeignRedirect(response: Response) {
  const location = response.headers.get('location');
  if (location) expect(new URL(location, server.url).origin).toBe(server.url);
}

describe('redirect_uri is matched exactly', () => {
  it('sends the registered redirect URI on (the control for the refusals below)', async () => {
    const response = await authorize(web, REGISTERED);
    expect([302, 303]).toContain(response.status);
    expect(new URL(response.headers.get('location')!, server.url).origin).toBe(server.url);
  });

  it.each([
    ['a longer path', `${REGISTERED}/../../evil`],
    ['a path prefix trick', `${REGISTERED}.evil.example`],
    ['a longer path segment', `${REGISTERED}evil`],
    ['a sub-path', `${REGISTERED}/evil`],
    ['the host in another case', 'https://APP.EXAMPLE/callback'],
    ['a trailing slash', `${REGISTERED}/`],
    ['a trailing dot on the host', 'https://app.example./callback'],
    ['an added query', `${REGISTERED}?next=https://evil.example/`],
    ['a fragment', `${REGISTERED}#https://evil.example/`],
    ['userinfo', 'https://app.example@evil.example/callback'],
    ['userinfo with a password', 'https://app.example:443@evil.example/callback'],
    ['an encoded slash (%2F)', 'https://app.example%2F@evil.example/callback'],
    ['an encoded slash (%2f)', 'https://evil.example%2fapp.example/callback'],
    ['an encoded backslash (%5C)', 'https://evil.example%5C@app.example/callback'],
    ['an encoded path traversal', `${REGISTERED}%2F..%2F..%2Fevil`],
    ['a backslash', 'https://evil.example\\@app.example/callback'],
    ['backslashes instead of slashes', 'https:\\\\evil.example\\callback'],
    ['a scheme-relative URI', '//evil.example/callback'],
    ['a scheme-relative URI with three slashes', '///evil.example/callback'],
    ['a doubled slash after the host', 'https://evil.example//app.example/callback'],
    ['another port', 'https://app.example:8443/callback'],
    ['http instead of https', 'http://app.example/callback'],
    ['an IDN lookalike (Cyrillic а)', 'https://аpp.example/callback'],
    ['the same lookalike in punycode', 'https://xn--pp-6kc.example/callback'],
    ['another host', 'https://evil.example/callback'],
    ['javascript:', 'javascript:alert(document.domain)//https://app.example/callback'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
  ])('refuses %s with an error page, redirecting nowhere', async (_what, redirectUri) => {
    const response = await authorize(web, redirectUri);
    expect(response.status, redirectUri).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toMatch(/redirect_uri/);
  });

  it.each([
    ['a lookalike host', 'http://127.0.0.1.evil.example/callback'],
    ['userinfo', 'http://127.0.0.1@evil.example/callback'],
    ['userinfo with a port', 'http://127.0.0.1:8080@evil.example/callback'],
    ['another path', 'http://127.0.0.1:8080/callback/evil'],
    ['another loopback name', 'http://localhost:8080/callback'],
    ['https on loopback', 'https://127.0.0.1:8080/callback'],
  ])('refuses a native client’s loopback URI with %s: any port, but nothing else changed', async (_what, redirectUri) => {
    const response = await authorize(native, redirectUri);
    expectNoForeignRedirect(response);
    expect(response.status, redirectUri).toBe(400);
  });

  it('errors about the authorization request itself go back only to a registered redirect URI', async () => {
    // A request that is wrong in another way (no PKCE) but names a foreign redirect URI: the error
    // must not be delivered there.
    const query = new URLSearchParams({ response_type: 'code', client_id: web.client_id, redirect_uri: 'https://evil.example/callback', state: 's' });
    const response = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('registration refuses redirect URIs that are dangerous in themselves', () => {
  it.each([
    ['userinfo', 'https://app.example@evil.example/callback'],
    ['userinfo with a password', 'https://user:secret@app.example/callback'],
    ['userinfo on loopback', 'http://127.0.0.1@evil.example/callback'],
    ['userinfo on a private-use scheme', 'com.example.app://user@callback'],
    ['javascript: in capitals', 'JAVASCRIPT:alert(1)'],
    ['javascript: with a tab inside', 'java\tscript:alert(1)'],
    ['vbscript:', 'vbscript:msgbox(1)'],
    ['data: with HTML', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['an empty fragment', 'https://app.example/callback#'],
    ['a backslash before userinfo', 'https://evil.test\\@good.test/cb'],
    ['https without slashes', 'https:evil.test/cb'],
    ['http on loopback with one slash', 'http:/127.0.0.1/cb'],
    ['a right-to-left override', 'https://good.test/\u202Ebc/cb'],
    ['ftp:', 'ftp://files.test/cb'],
    ['ws:', 'ws://127.0.0.1/cb'],
    ['chrome:', 'chrome://settings'],
    ['view-source:', 'view-source:https://good.test/cb'],
    ['intent:', 'intent://cb#Intent;scheme=https;end'],
    ['a single-word scheme no client uses', 'myapp://cb'],
  ])('refuses %s', async (_what, uri) => {
    const response = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Bad', redirect_uris: ['https://ok.example/cb', uri] }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
  });
});
