// docs/protocol.md §3–§5 under hostile input: generated bodies, parameters and headers sent to /oauth/register,
// /oauth/token (with a real client, real codes and refresh tokens among the values), /oauth/authorize
// (as a signed-in person, so that requests reach the consent step) and the consent form (with the
// person's real session and CSRF token, so that the fuzzed fields reach the decision). Every answer must
// be a well-formed error of the documented kind — never a 5xx, never a hang — and the server must stay
// up with flat memory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '@/lib/cli/standalone';
import { DATABASES } from '../helpers/databases';
import { type Bytes, fetchWithin, fuzz, hostileForm, hostileHeaderValue, hostileJsonBody, randomBytes, tallied, total, type Tally } from '../helpers/hostile-input';
import { authorizeUrl, Browser, openConsent, pkce, register, type ConsentForm, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { expectStillUp, memoryProbe } from '../helpers/server-health';

/** Inputs per endpoint, sized to keep this file near a minute and a half on a slow 2-core machine. */
const INPUTS = { register: 500, token: 700, authorize: 500, consent: 300, ask: 200 };
const PARALLEL = 4;

/** The OAuth error codes Gatehouse and its provider answer with (RFC 6749 §4.1.2.1, §5.2; RFC 7591 §3.2.2; RFC 8707; RFC 9126; RFC 9449). */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'invalid_scope',
  'invalid_target',
  'access_denied',
  'invalid_client_metadata',
  'invalid_redirect_uri',
  'too_many_requests',
  'login_required',
  'consent_required',
  'interaction_required',
  'request_not_supported',
  'request_uri_not_supported',
  'invalid_request_object',
  'invalid_request_uri',
  'registration_not_supported',
  'invalid_dpop_proof', // RFC 9449: a DPoP header the token endpoint cannot use
]);

type Fixture = { registration_body: Record<string, unknown> };
const fixtures = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json'), 'utf8')) as Fixture[];

const formHeaders = fc.record(
  {
    'content-type': fc.oneof({ weight: 4, arbitrary: fc.constant('application/x-www-form-urlencoded') }, { weight: 1, arbitrary: hostileHeaderValue }),
    accept: hostileHeaderValue,
    'x-forwarded-for': hostileHeaderValue,
    dpop: hostileHeaderValue,
  },
  { requiredKeys: ['content-type'] },
);

/** A form body: mostly built from valid parameters, sometimes bytes. */
function formBody(valid: Record<string, string>, valueFor: Parameters<typeof hostileForm>[1] = {}): fc.Arbitrary<string | Bytes> {
  return fc.oneof(
    { weight: 8, arbitrary: hostileForm(valid, valueFor) },
    { weight: 1, arbitrary: randomBytes },
    { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 80_000 }).map((length) => `${Object.keys(valid)[0]}=${'x'.repeat(length)}`) },
  );
}

/** An OAuth JSON error answer: a 4xx with `error` from the documented set. */
async function expectOAuthError(response: Response, text: string, where: string): Promise<void> {
  expect(response.status, where).toBeGreaterThanOrEqual(400);
  expect(response.status, where).toBeLessThan(500);
  expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
  expect(OAUTH_ERRORS.has(String(body.error)), where).toBe(true);
  if (body.error_description !== undefined) expect(typeof body.error_description, where).toBe('string');
}

function describeInput(body: string | Bytes, extra: unknown): string {
  return `${typeof body === 'string' ? body.slice(0, 400) : `${body.length} bytes`} ${JSON.stringify(extra ?? {}).slice(0, 300)}`;
}

describe.each([DATABASES.at(-1)!])('OAuth endpoints under hostile input (%s database)', (database) => {
  let server: RunningServer;
  let client: RegisteredClient;
  let browser: Browser;
  const tallies: Record<keyof typeof INPUTS, Tally> = { register: {}, token: {}, authorize: {}, consent: {}, ask: {} };
  let memory: ReturnType<typeof memoryProbe>;

  beforeAll(async () => {
    // Budgets sized for a fuzzer: the registration rate limit is its own test (oauth-registration).
    server = await startServer({ database, env: { REGISTRATION_RATE_LIMIT: '100000' } });
    client = await register(server.url, { client_name: 'Fuzz', redirect_uris: ['https://fuzz.example/cb', 'http://127.0.0.1/cb'] });
    browser = new Browser(server.url);
    await browser.signIn('owner@acme.test', TEST_DEMO_PASSWORD);
    memory = memoryProbe(server);
  });
  afterAll(async () => {
    const counts = Object.entries(tallies).map(([endpoint, tally]) => `${endpoint} ${total(tally)} ${JSON.stringify(tally)}`);
    console.log(`OAuth hostile inputs tried: ${counts.join('; ')}; ${memory?.describe()}`);
    await server?.stop();
  });

  it('answers every generated registration with 201 or a documented JSON error', async () => {
    const registration = fc
      .constantFrom(...fixtures.map((fixture) => fixture.registration_body))
      .chain((valid) => fc.record({ body: hostileJsonBody(valid, {}, 70_000), headers: fc.record({ 'content-type': fc.oneof(fc.constant('application/json'), hostileHeaderValue) }) }));
    const sent = await fuzz(registration, { inputs: INPUTS.register, parallel: PARALLEL }, async ({ body, headers }) => {
      const response = await fetchWithin(`${server.url}/oauth/register`, { method: 'POST', headers, body });
      const text = await response.text();
      tallied(tallies.register, response.status);
      const where = `${response.status} ${text.slice(0, 300)} for ${describeInput(body, headers)}`;
      if (response.status === 201) {
        expect(typeof JSON.parse(text).client_id, where).toBe('string');
        return;
      }
      await expectOAuthError(response, text, where);
    });
    expect(total(tallies.register)).toBe(sent);
  }, 120_000);

  it('answers every generated token request with tokens or a documented JSON error', async () => {
    // Real codes for the client, so that exchanges get as far as PKCE and redirect_uri checks.
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { challenge } = pkce();
      const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge }));
      const body = new URLSearchParams({ csrf: form.csrf, decision: 'allow', org: form.orgIds[0]!, scope: 'mcp:read' });
      const { url } = await browser.follow(`${server.url}/consent/${form.uid}/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: body.toString(),
      });
      codes.push(new URL(url).searchParams.get('code')!);
    }
    const grantTypes = fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password', 'urn:ietf:params:oauth:grant-type:device_code', 'implicit');
    const token = fc.record({
      body: formBody(
        {
          grant_type: 'authorization_code',
          code: codes[0]!,
          redirect_uri: client.redirect_uris[0]!,
          client_id: client.client_id,
          code_verifier: pkce().verifier,
          refresh_token: 'mcp_rt_unknown',
          scope: 'mcp:read',
          resource: `${server.url}/mcp`,
        },
        { grant_type: grantTypes, code: fc.constantFrom(...codes) },
      ),
      headers: fc.tuple(formHeaders, fc.option(hostileHeaderValue.map((value) => `Basic ${value}`))).map(([headers, authorization]) => (authorization ? { ...headers, authorization } : headers)),
    });
    const sent = await fuzz(token, { inputs: INPUTS.token, parallel: PARALLEL }, async ({ body, headers }) => {
      const response = await fetchWithin(`${server.url}/oauth/token`, { method: 'POST', headers, body });
      const text = await response.text();
      tallied(tallies.token, response.status);
      const where = `${response.status} ${text.slice(0, 300)} for ${describeInput(body, headers)}`;
      expect(response.headers.get('cache-control'), where).toMatch(/no-store/);
      if (response.status === 200) {
        expect(JSON.parse(text).access_token, where).toMatch(/^mcp_at_/);
        return;
      }
      await expectOAuthError(response, text, where);
    });
    expect(total(tallies.token)).toBe(sent);
    await memory.mark();
  }, 120_000);

  it('answers every generated authorization request with a redirect or an HTML error page', async () => {
    const authorize = fc.record({
      query: hostileForm(
        {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: client.redirect_uris[0]!,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          state: 'fuzz',
          scope: 'mcp:read mcp:write',
          resource: `${server.url}/mcp`,
          prompt: 'consent',
        },
        { response_type: fc.constantFrom('code', 'token', 'id_token', 'code id_token', 'none', ''), code_challenge_method: fc.constantFrom('S256', 'plain', 's256', '') },
      ),
    });
    const sent = await fuzz(authorize, { inputs: INPUTS.authorize, parallel: PARALLEL }, async ({ query }) => {
      const response = await fetchWithin(`${server.url}/oauth/authorize?${query}`, { headers: { cookie: browser.jar.header() } });
      const text = await response.text();
      tallied(tallies.authorize, response.status);
      const where = `${response.status} ${text.slice(0, 300)} for ${query.slice(0, 400)}`;
      expect(response.status, where).toBeLessThan(500);
      // A query past Node's 16 KiB header limit is refused by the HTTP parser before any code runs.
      if (response.status === 431 || response.status === 414) {
        expect(query.length, where).toBeGreaterThan(8 * 1024);
        return;
      }
      if ([302, 303].includes(response.status)) {
        const location = new URL(response.headers.get('location')!, server.url);
        if (location.origin === server.url) {
          // Into the interaction: the consent screen (or sign-in), nothing else.
          expect(location.pathname, where).toMatch(/^\/(consent\/|login|oauth\/authorize)/);
        } else {
          // Back to the client: only to a registered redirect URI, with a documented error.
          expect(
            client.redirect_uris.some((uri) => location.toString().startsWith(uri)),
            where,
          ).toBe(true);
          // In the query, or in the fragment for response types whose default response mode is fragment.
          const answer = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
          expect(OAUTH_ERRORS.has(String(answer.get('error'))), where).toBe(true);
          expect(answer.get('iss'), where).toBe(server.url);
        }
        return;
      }
      // Refused before any redirect can be trusted: the provider's HTML error page, or Gatehouse's JSON
      // refusal of a parameter no OAuth value may hold.
      if (response.headers.get('content-type')?.startsWith('application/json')) await expectOAuthError(response, text, where);
      else {
        expect(response.status, where).toBeGreaterThanOrEqual(400);
        expect(response.headers.get('content-type'), where).toMatch(/^text\/html/);
      }
    });
    expect(total(tallies.authorize)).toBe(sent);
  }, 120_000);

  it('answers every generated consent form with a redirect or a plain refusal, never a 5xx', async () => {
    // A fresh consent request per batch: a decision (Deny, or a valid Allow) ends the one it answers.
    let form: ConsentForm | null = null;
    const consent = fc.record({
      body: formBody({ csrf: 'CSRF', decision: 'allow', org: 'ORG', scope: 'mcp:read', uid: 'UID' }, { decision: fc.constantFrom('allow', 'deny', 'Allow', '', 'allow\u0000') }),
      path: fc.oneof({ weight: 6, arbitrary: fc.constant('UID') }, { weight: 1, arbitrary: hostileHeaderValue.filter((value) => value.trim() !== '').map(encodeURIComponent) }),
      origin: fc.oneof({ weight: 8, arbitrary: fc.constant('SELF') }, { weight: 1, arbitrary: hostileHeaderValue }),
    });
    const sent = await fuzz(consent, { inputs: INPUTS.consent, parallel: 1 }, async ({ body, path, origin }) => {
      form ??= await openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
      const real = (text: string) => text.replaceAll('CSRF', form!.csrf).replaceAll('ORG', form!.orgIds[0]!).replaceAll('UID', form!.uid);
      const uid = real(path);
      const payload = typeof body === 'string' ? real(body) : body;
      const response = await fetchWithin(`${server.url}/consent/${uid}/decision`, {
        method: 'POST',
        headers: { cookie: browser.jar.header(), 'content-type': 'application/x-www-form-urlencoded', origin: origin === 'SELF' ? server.url : origin },
        body: payload,
      });
      const text = await response.text();
      tallied(tallies.consent, response.status);
      const where = `${response.status} ${text.slice(0, 300)} for /consent/${uid.slice(0, 100)} ${describeInput(payload, origin)}`;
      expect(response.status, where).toBeLessThan(500);
      if (response.status === 303) {
        const location = new URL(response.headers.get('location')!);
        expect(location.origin, where).toBe(server.url);
        expect(location.pathname, where).toMatch(/^\/(consent\/|oauth\/authorize\/)/);
        if (location.pathname.startsWith('/oauth/authorize/')) form = null; // decided: the next input needs a new request
        return;
      }
      // A hostile id in the path may not route to the form's handler at all (404, or 308 normalizing the path).
      expect(path === 'UID' ? [403, 413] : [403, 404, 308, 413], where).toContain(response.status);
      if (response.status !== 308) expect(response.headers.get('content-type'), where).toMatch(/^text\/(plain|html)/);
    });
    expect(total(tallies.consent)).toBe(sent);
    await memory.mark();
    await expectStillUp(server);
    memory.expectFlat();
  }, 120_000);

  it('answers every generated "Ask an admin" form with a redirect to the consent screen or a plain refusal, never a 5xx', async () => {
    // An ask never ends the authorization request: one consent request serves every input.
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    const ask = fc.record({
      body: formBody({ csrf: 'CSRF', organization: 'ORG', note: 'For the reports' }, { note: fc.oneof(hostileHeaderValue, fc.string({ maxLength: 700 })) }),
      origin: fc.oneof({ weight: 8, arbitrary: fc.constant('SELF') }, { weight: 1, arbitrary: hostileHeaderValue }),
    });
    const sent = await fuzz(ask, { inputs: INPUTS.ask, parallel: 1 }, async ({ body, origin }) => {
      const payload = typeof body === 'string' ? body.replaceAll('CSRF', form.csrf).replaceAll('ORG', form.orgIds[0]!) : body;
      const response = await fetchWithin(`${server.url}/consent/${form.uid}/ask`, {
        method: 'POST',
        headers: { cookie: browser.jar.header(), 'content-type': 'application/x-www-form-urlencoded', origin: origin === 'SELF' ? server.url : origin },
        body: payload,
      });
      const text = await response.text();
      tallied(tallies.ask, response.status);
      const where = `${response.status} ${text.slice(0, 300)} for ${describeInput(payload, origin)}`;
      if (response.status === 303) {
        const location = new URL(response.headers.get('location')!);
        expect(location.origin, where).toBe(server.url);
        expect(location.pathname, where).toBe(`/consent/${form.uid}`);
        return;
      }
      expect([403, 413], where).toContain(response.status);
      expect(response.headers.get('content-type'), where).toMatch(/^text\/html/);
    });
    expect(total(tallies.ask)).toBe(sent);
    await expectStillUp(server);
  }, 120_000);
});
