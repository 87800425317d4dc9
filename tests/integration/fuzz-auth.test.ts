// next-auth's endpoints (/api/auth/*) under hostile input, with the same generators as the OAuth and
// console fuzzers: generated forms, JSON and bytes for sign-in, the credentials callback, sign-out, the
// session, the CSRF and provider lists and the client log, sent with a real CSRF token and its cookie (so
// that a request gets past the CSRF check) and without, signed in and signed out, with hostile queries,
// content types and oversized bodies. Every answer must come within the deadline and be no 5xx, and the
// server must stay up with flat memory.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { type Bytes, fetchWithin, fuzz, hostileForm, hostileHeaderValue, hostileJsonBody, hostileString, randomBytes, tallied, total, type Tally } from '../helpers/hostile-input';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { expectStillUp, memoryProbe } from '../helpers/server-health';
import { CookieJar, signIn } from '../helpers/session';

const INPUTS = Number(process.env.FUZZ_AUTH_INPUTS ?? 1000);
const PARALLEL = 4;

/**
 * Callback URLs: paths on this site (hostile ones among them), other origins, schemes, and values that are
 * no URL at all (`http://[`, `javascript:…`) or hold characters outside printable ASCII — next-auth once
 * answered those with a 500; Gatehouse cleans them before it reads them (lib/auth/next-auth-request.ts).
 */
const callbackUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('/', '/admin', '/settings/account', '/login?callbackUrl=%2Fadmin', '//evil.test', '/\\evil.test', 'https://evil.test/', 'http://localhost/', 'javascript:alert(1)', 'http://['),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((path) => `/${path}`),
);

const encodedCallbackUrl = callbackUrl.map(encodeURIComponent);

type Endpoint = { method: 'GET' | 'POST'; path: string; body: 'form' | 'json' | 'none'; valid: Record<string, string> };

/** Each endpoint with what its own client sends; `csrfToken` is filled in per request. */
const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/api/auth/callback/credentials',
    body: 'form',
    valid: { csrfToken: '', email: 'owner@acme.test', password: 'wrong-password', callbackUrl: '/', json: 'true', redirect: 'false' },
  },
  { method: 'POST', path: '/api/auth/callback/credentials', body: 'json', valid: { csrfToken: '', email: 'member@acme.test', password: 'wrong-password', callbackUrl: '/' } },
  { method: 'POST', path: '/api/auth/signin/credentials', body: 'form', valid: { csrfToken: '', callbackUrl: '/', json: 'true' } },
  { method: 'POST', path: '/api/auth/signin', body: 'form', valid: { csrfToken: '', callbackUrl: '/' } },
  { method: 'POST', path: '/api/auth/signout', body: 'form', valid: { csrfToken: '', callbackUrl: '/login', json: 'true' } },
  { method: 'POST', path: '/api/auth/session', body: 'json', valid: { csrfToken: '', data: '' } },
  { method: 'POST', path: '/api/auth/_log', body: 'form', valid: { level: 'error', code: 'CLIENT_FETCH_ERROR', message: 'fuzz' } },
  { method: 'POST', path: '/api/auth/csrf', body: 'form', valid: { csrfToken: '' } },
  { method: 'POST', path: '/api/auth/providers', body: 'form', valid: { csrfToken: '' } },
  { method: 'GET', path: '/api/auth/signin', body: 'none', valid: { callbackUrl: '/', error: 'CredentialsSignin' } },
  { method: 'GET', path: '/api/auth/signin/credentials', body: 'none', valid: { callbackUrl: '/' } },
  { method: 'GET', path: '/api/auth/signout', body: 'none', valid: { callbackUrl: '/' } },
  { method: 'GET', path: '/api/auth/session', body: 'none', valid: {} },
  { method: 'GET', path: '/api/auth/csrf', body: 'none', valid: {} },
  { method: 'GET', path: '/api/auth/providers', body: 'none', valid: {} },
  { method: 'GET', path: '/api/auth/error', body: 'none', valid: { error: 'Configuration' } },
  { method: 'GET', path: '/api/auth/callback/credentials', body: 'none', valid: { callbackUrl: '/' } },
  { method: 'GET', path: '/api/auth/_log', body: 'none', valid: {} },
];

/** Who sends it: signed in with a valid CSRF token and its cookie, with the cookie but another token, or nobody. */
type Caller = 'signed-in' | 'csrf-cookie-only' | 'anonymous';

const request = fc.record({
  endpoint: fc.constantFrom(...ENDPOINTS),
  caller: fc.constantFrom<Caller>('signed-in', 'csrf-cookie-only', 'anonymous'),
  /** Whether the real CSRF token goes in the body (else a hostile one, or none, as the mutation decides). */
  realCsrf: fc.boolean(),
  bodyKind: fc.oneof({ weight: 8, arbitrary: fc.constant('shaped' as const) }, { weight: 1, arbitrary: fc.constant('bytes' as const) }, { weight: 1, arbitrary: fc.constant('oversized' as const) }),
  contentType: fc.option(hostileHeaderValue, { freq: 6 }),
  query: fc.option(hostileForm({ callbackUrl: '/' }, { callbackUrl: encodedCallbackUrl }), { freq: 3 }),
  // Paths next to the real ones: unknown actions and providers, prototype names. (Not `/..` or `/%2e%2e`: the client
  // resolves it, and the framework's trailing-slash redirect then echoes a long query twice in its headers,
  // past what fetch reads.)
  extraPath: fc.option(fc.constantFrom('/__proto__', '/constructor', '/x', '/%00', '/credentials/extra', '/toString'), { freq: 8 }),
});
type AuthRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

describe.each([DATABASES.at(-1)!])('next-auth endpoints under hostile input (%s database)', (database) => {
  let server: RunningServer;
  let signedIn: CookieJar;
  let signedInCsrf: string;
  let anonymousCsrf: { jar: CookieJar; token: string };

  beforeAll(async () => {
    server = await startServer({ database });
    signedIn = (await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).jar;
    signedInCsrf = ((await (await signedIn.fetch(`${server.url}/api/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
    const jar = new CookieJar();
    const token = ((await (await jar.fetch(`${server.url}/api/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
    anonymousCsrf = { jar, token };
  });
  afterAll(async () => server?.stop());

  /** The body as the endpoint's client would shape it, mutated by the generators; or bytes; or too much. */
  function bodyFor(input: AuthRequest, csrfToken: string | null): fc.Arbitrary<string | Bytes> {
    const valid = { ...input.endpoint.valid };
    if ('csrfToken' in valid) valid.csrfToken = csrfToken ?? 'not-a-token';
    if (input.bodyKind === 'bytes') return randomBytes;
    if (input.bodyKind === 'oversized') return fc.integer({ min: 15_000, max: 40_000 }).map((length) => `csrfToken=${encodeURIComponent(valid.csrfToken ?? '')}&x=${'a'.repeat(length)}`);
    if (input.endpoint.body === 'json') {
      return hostileJsonBody(
        valid,
        {
          callbackUrl: callbackUrl.map((url) => JSON.stringify(url)),
          csrfToken: fc.oneof(
            fc.constant(JSON.stringify(valid.csrfToken)),
            hostileString.map((text) => JSON.stringify(text)),
          ),
        },
        17_000,
      );
    }
    return hostileForm(valid, { callbackUrl: encodedCallbackUrl, ...(input.realCsrf && valid.csrfToken ? { csrfToken: fc.constant(encodeURIComponent(valid.csrfToken)) } : {}) });
  }

  const csrfOf = (caller: Caller) => (caller === 'signed-in' ? signedInCsrf : caller === 'csrf-cookie-only' ? anonymousCsrf.token : null);

  /** Requests with their bodies (built here: the CSRF tokens exist only once the server runs). */
  const withBodies = () =>
    request.chain((input) => (input.endpoint.method === 'GET' ? fc.constant(null) : bodyFor(input, input.realCsrf ? csrfOf(input.caller) : null)).map((body) => ({ ...input, body })));

  function init(input: AuthRequest & { body: string | Bytes | null }): { url: string; init: RequestInit; shown: string } {
    const cookie = input.caller === 'signed-in' ? signedIn.header() : input.caller === 'csrf-cookie-only' ? anonymousCsrf.jar.header() : undefined;
    const path = `${input.endpoint.path}${input.extraPath ?? ''}`;
    const query = input.query ?? (Object.keys(input.endpoint.valid).length && input.endpoint.method === 'GET' ? new URLSearchParams(input.endpoint.valid).toString() : '');
    const url = `${server.url}${path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { origin: server.url, ...(cookie ? { cookie } : {}) };
    if (input.endpoint.method === 'GET') return { url, init: { method: 'GET', headers }, shown: `GET ${path}?${query.slice(0, 200)} as ${input.caller}` };
    const body = input.body!;
    headers['content-type'] = input.contentType ?? (input.endpoint.body === 'json' ? 'application/json' : 'application/x-www-form-urlencoded');
    const shown = `POST ${path}${query ? `?${query.slice(0, 200)}` : ''} as ${input.caller} (${headers['content-type']}): ${typeof body === 'string' ? body.slice(0, 300) : `${body.length} bytes`}`;
    return { url, init: { method: 'POST', headers, body }, shown };
  }

  it('answers every generated request to /api/auth/*, with and without a valid CSRF token, within its deadline and never with a 5xx, and stays up with flat memory', async () => {
    const tally: Tally = {};
    const memory = memoryProbe(server);
    const inputs = withBodies();
    const send = async (input: AuthRequest & { body: string | Bytes | null }) => {
      const { url, init: requestInit, shown } = init(input);
      let response: Response;
      try {
        response = await fetchWithin(url, requestInit);
      } catch (error) {
        throw new Error(`${(error as Error).message} (${String((error as Error).cause ?? '')}) for ${shown}`);
      }
      const text = await response.text();
      tallied(tally, response.status);
      expect(response.status, `${response.status} for ${shown}: ${text.slice(0, 300)}`).toBeLessThan(500);
    };
    let tried = await fuzz(inputs, { inputs: INPUTS / 2, parallel: PARALLEL }, send);
    await memory.mark();
    tried += await fuzz(inputs, { inputs: INPUTS / 2, parallel: PARALLEL }, send);
    await memory.mark();
    console.log(`next-auth endpoints: ${tried} hostile requests, answers by status ${JSON.stringify(tally)}; ${memory.describe()}`);
    expect(total(tally)).toBe(tried);
    await expectStillUp(server);
    memory.expectFlat();
  }, 240_000);
});
