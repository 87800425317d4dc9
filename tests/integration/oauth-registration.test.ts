// docs/protocol.md §3: dynamic client registration (RFC 7591, RFC 7592) — what real clients send succeeds, what is
// dangerous is refused, and secrets never come back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/cli/standalone';
import { DATABASES } from '../helpers/databases';
import { fetchFrom } from '../helpers/from-address';
import { inspectDatabase } from '../helpers/inspect';
import { connect, openConsent, authorizeUrl, pkce, register, tokenRequest, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

type Fixture = { client: string; registration_body: Record<string, unknown> };
const FIXTURES_FILE = join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json');
const fixtures = JSON.parse(readFileSync(FIXTURES_FILE, 'utf8')) as Fixture[];

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ database: 'embedded', env: { REGISTRATION_RATE_LIMIT: '1000' } });
});
afterAll(async () => server?.stop());

async function attempt(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { response, body: (await response.json()) as Record<string, unknown> };
}

describe('registration bodies real MCP clients send', () => {
  it.each(fixtures.map((fixture) => [fixture.client, fixture.registration_body] as const))('%s registers', async (_name, body) => {
    const client = await register(server.url, body);
    expect(client.client_id).toBeTruthy();
    expect(client.client_id_issued_at).toEqual(expect.any(Number));
    expect(client.registration_access_token).toBeTruthy();
    expect(client.registration_client_uri).toBe(`${server.url}/oauth/register/${client.client_id}`);
    expect(client.redirect_uris).toEqual([...new Set(body.redirect_uris as string[])]);
    // Unknown grant types (VS Code's device code) are dropped, not refused.
    expect(client.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('registers twice in a row with distinct client ids (Claude does)', async () => {
    const body = fixtures[0]!.registration_body;
    const [first, second] = await Promise.all([register(server.url, body), register(server.url, body)]);
    expect(first.client_id).not.toBe(second.client_id);
  });

  it('makes custom-scheme and loopback clients native even when they say web', async () => {
    const client = await register(server.url, {
      client_name: 'Native',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
      application_type: 'web',
    });
    expect(client.application_type).toBe('native');
  });

  it('returns a confidential client its secret once, then never again', async () => {
    const client = await register(server.url, {
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(client.client_secret).toEqual(expect.any(String));
    const read = await fetch(client.registration_client_uri, {
      headers: { authorization: `Bearer ${client.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    const metadata = (await read.json()) as Record<string, unknown>;
    expect(metadata.client_id).toBe(client.client_id);
    expect(metadata).not.toHaveProperty('client_secret');
  });
});

describe('registration refusals', () => {
  it.each([
    ['javascript: URIs', ['javascript:alert(1)']],
    ['data: URIs', ['data:text/html,hi']],
    ['file: URIs', ['file:///etc/passwd']],
    ['fragments', ['https://app.example/cb#frag']],
    ['http on a public host', ['http://app.example/cb']],
    ['no redirect URI', []],
    ['more than 10 redirect URIs', Array.from({ length: 11 }, (_, index) => `https://app.example/cb${index}`)],
    ['an overlong redirect URI', [`https://app.example/${'a'.repeat(2100)}`]],
  ])('refuses %s with invalid_redirect_uri', async (_what, uris) => {
    const { response, body } = await attempt({ client_name: 'Bad', redirect_uris: uris });
    expect(response.status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toEqual(expect.any(String));
  });

  it('refuses malformed JSON with a clear error', async () => {
    const { response, body } = await attempt('{"redirect_uris": [');
    expect(response.status).toBe(400);
    expect(body).toEqual({ error: 'invalid_client_metadata', error_description: 'the registration body is not valid JSON' });
  });

  it('refuses a body over 64 KiB', async () => {
    const { response, body } = await attempt({ client_name: 'Big', redirect_uris: ['https://a.example/cb'], padding: 'x'.repeat(70_000) });
    expect(response.status).toBe(413);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('refuses an overlong client name', async () => {
    const { response, body } = await attempt({ client_name: 'n'.repeat(300), redirect_uris: ['https://a.example/cb'] });
    expect(response.status).toBe(400);
    expect(body.error_description).toMatch(/client_name/);
  });

  it.each([
    ['client_name', 'Trusted\u202Eeton'],
    ['client_name', 'Trus\u200Bted Notes'],
    ['client_uri', 'https://notes.example/\u2066home'],
    ['software_version', '1.0\u200F'],
  ])('refuses %s with an invisible or bidirectional character as invalid_client_metadata naming the field', async (field, value) => {
    const { response, body } = await attempt({ client_name: 'Notes', redirect_uris: ['https://a.example/cb'], [field]: value });
    expect(response.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toContain(field);
  });

  it('answers an unknown client at the token endpoint with 401 invalid_client, so that it registers again', async () => {
    const { response, body } = await tokenRequest(server.url, {
      grant_type: 'authorization_code',
      code: 'whatever',
      redirect_uri: 'https://a.example/cb',
      client_id: 'no-such-client',
      code_verifier: 'v'.repeat(43),
    });
    expect(response.status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });
});

describe('RFC 7592 management', () => {
  it('updates and deletes a registration with its access token; the deleted client is then unknown', async () => {
    const client = await register(server.url, { client_name: 'Managed', redirect_uris: ['https://managed.example/cb'] });
    const auth = { authorization: `Bearer ${client.registration_access_token}`, 'content-type': 'application/json' };
    const updated = await fetch(client.registration_client_uri, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ client_id: client.client_id, client_name: 'Renamed', redirect_uris: ['https://managed.example/cb2'] }),
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ client_name: 'Renamed', redirect_uris: ['https://managed.example/cb2'] });

    expect((await fetch(client.registration_client_uri, { method: 'DELETE', headers: auth })).status).toBe(204);
    const { response, body } = await tokenRequest(server.url, {
      grant_type: 'refresh_token',
      refresh_token: 'anything',
      client_id: client.client_id,
    });
    expect(response.status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });
});

describe.each(DATABASES)('RFC 7592 updates on the %s database', (kind) => {
  const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
  // Its own server: an update's writes and refusals are transactions, which both databases must honour.
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ database: kind, env: { REGISTRATION_RATE_LIMIT: '1000' } });
  });
  afterAll(async () => server?.stop());

  async function update(client: RegisteredClient, fields: Record<string, unknown>, token = client.registration_access_token) {
    const response = await fetch(client.registration_client_uri, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: client.client_id, ...fields }),
    });
    return { response, body: (await response.json()) as Record<string, unknown> };
  }

  async function read(client: RegisteredClient) {
    const response = await fetch(client.registration_client_uri, { headers: { authorization: `Bearer ${client.registration_access_token}` } });
    return (await response.json()) as Record<string, unknown>;
  }

  async function updatesOf(clientId: string) {
    const inspected = await inspectDatabase(server, async (query) => ({
      row: (await query<{ name: string | null; hostname: string | null }>(`SELECT name, hostname FROM clients WHERE client_id = $1`, [clientId]))[0],
      events: await query<{ data: Record<string, unknown>; ip: string | null }>(`SELECT data, ip FROM audit_events WHERE client_id = $1 AND type = 'client.updated' ORDER BY id`, [clientId]),
    }));
    server = inspected.server;
    return inspected.result;
  }

  it("records an update in Gatehouse's own client row and audits it with before and after, so the consoles show what the consent screen shows", async () => {
    const client = await register(server.url, { client_name: 'Trusted Notes', redirect_uris: ['https://notes.example/cb'] });
    const { browser } = await connect(server.url, client, member);
    const renamed = await update(client, { client_name: 'Evil Exfil', redirect_uris: ['https://notes.example/oauth/callback'] });
    expect(renamed.response.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).not.toHaveProperty('client_secret');

    const { row, events } = await updatesOf(client.client_id);
    expect(row).toEqual({ name: 'Evil Exfil', hostname: 'notes.example' });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      before: { name: 'Trusted Notes', redirectUris: ['https://notes.example/cb'] },
      after: { name: 'Evil Exfil', redirectUris: ['https://notes.example/oauth/callback'] },
      changedFields: ['client_name', 'redirect_uris'],
    });
    expect(events[0]!.ip).toEqual(expect.any(String));

    await browser.signIn(member.email, member.password); // the server restarted for the inspection
    const apps = await (await browser.follow(`${server.url}/settings/connected-apps`)).response.text();
    expect(apps).toContain('Evil Exfil');
    expect(apps).not.toContain('Trusted Notes');
    const consent = await openConsent(browser, authorizeUrl(server.url, { client: { ...client, redirect_uris: ['https://notes.example/oauth/callback'] }, challenge: pkce().challenge }));
    expect(consent.html).toContain('Evil Exfil');
  });

  it.each([
    ['another host', ['https://evil.test/cb']],
    ['an added host', ['https://notes2.example/cb', 'https://evil.test/cb']],
    ['another port on the same host', ['https://notes2.example:8443/cb']],
    ['a private-use scheme added to a web client', ['https://notes2.example/cb', 'com.evil.app:/cb']],
  ])('refuses an update that changes the set of redirect hosts (%s) with invalid_redirect_uri, and changes nothing', async (_what, uris) => {
    const client = await register(server.url, { client_name: 'Notes Two', redirect_uris: ['https://notes2.example/cb'] });
    const moved = await update(client, { client_name: 'Evil Exfil', redirect_uris: uris });
    expect(moved.response.status).toBe(400);
    expect(moved.body.error).toBe('invalid_redirect_uri');
    expect(moved.body.error_description).toMatch(/register again/);
    expect(await read(client)).toMatchObject({ client_name: 'Notes Two', redirect_uris: ['https://notes2.example/cb'] });
  });

  it('lets a native client change its loopback port and path and its private-use path, but not its scheme or loopback host', async () => {
    const client = await register(server.url, { client_name: 'Native Notes', redirect_uris: ['http://127.0.0.1:8080/cb', 'com.example.notes:/cb'] });
    const allowed = await update(client, { client_name: 'Native Notes', redirect_uris: ['http://127.0.0.1:9090/other', 'com.example.notes:/oauth/callback'] });
    expect(allowed.response.status, JSON.stringify(allowed.body)).toBe(200);
    for (const uris of [['http://localhost:9090/other', 'com.example.notes:/oauth/callback'], ['http://127.0.0.1:9090/other', 'com.evil.notes:/oauth/callback'], ['http://127.0.0.1:9090/other']]) {
      const refused = await update(client, { client_name: 'Native Notes', redirect_uris: uris });
      expect(refused.response.status, uris.join(' ')).toBe(400);
      expect(refused.body.error).toBe('invalid_redirect_uri');
    }
    expect((await read(client)).redirect_uris).toEqual(['http://127.0.0.1:9090/other', 'com.example.notes:/oauth/callback']);
  });

  it.each(['https:notes4.example/cb', 'https://notes4.example\\@evil.test/cb', 'myapp://cb'])('holds an update to the rules of registration: %s is refused', async (uri) => {
    const client = await register(server.url, { client_name: 'Notes Four', redirect_uris: ['https://notes4.example/cb'] });
    const refused = await update(client, { client_name: 'Notes Four', redirect_uris: [uri] });
    expect(refused.response.status).toBe(400);
    expect(refused.body.error).toBe('invalid_redirect_uri');
    expect((await read(client)).redirect_uris).toEqual(['https://notes4.example/cb']);
  });

  it('refuses an update whose name carries a right-to-left override, and changes nothing', async () => {
    const client = await register(server.url, { client_name: 'Notes Five', redirect_uris: ['https://notes5.example/cb'] });
    const refused = await update(client, { client_name: 'Trusted\u202Eeton', redirect_uris: ['https://notes5.example/cb'] });
    expect(refused.response.status).toBe(400);
    expect(refused.body.error).toBe('invalid_client_metadata');
    expect(refused.body.error_description).toContain('client_name');
    expect((await read(client)).client_name).toBe('Notes Five');
  });

  it('authenticates the registration access token before it looks at an echoed client_secret: a wrong token gets the same 401 whether the secret is right or wrong', async () => {
    const client = await register(server.url, {
      client_name: 'Secret Notes',
      redirect_uris: ['https://secret-notes.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const secret = client.client_secret as string;
    const fields = { client_name: 'Evil Exfil', redirect_uris: ['https://secret-notes.example/cb'], token_endpoint_auth_method: 'client_secret_basic' };
    const answers = [];
    for (const echoed of [secret, 'not-the-secret']) {
      const response = await fetch(client.registration_client_uri, {
        method: 'PUT',
        headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: client.client_id, client_secret: echoed, ...fields }),
      });
      answers.push({ status: response.status, authenticate: response.headers.get('www-authenticate'), body: await response.json() });
    }
    expect(answers[0]!.status).toBe(401);
    expect(answers[0]!.body).toMatchObject({ error: 'invalid_token' });
    expect(answers[1]).toEqual(answers[0]);
    // With the token, the echoed secret is checked (RFC 7592 §2.2), then dropped.
    expect((await update(client, { ...fields, client_secret: 'not-the-secret' })).body.error).toBe('invalid_client_metadata');
    const renamed = await update(client, { ...fields, client_secret: secret });
    expect(renamed.response.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.client_name).toBe('Evil Exfil');
  });

  it.each([
    ['a public client to a secret', 'none', 'client_secret_basic'],
    ['a public client to a key', 'none', 'private_key_jwt'],
    ['a confidential client to none', 'client_secret_post', 'none'],
    ['a confidential client that leaves the method out (none by default)', 'client_secret_basic', undefined],
  ])('refuses an update that changes how the client authenticates (%s) with invalid_client_metadata, and changes nothing', async (_what, from, to) => {
    const client = await register(server.url, { client_name: 'Auth Notes', redirect_uris: ['https://auth-notes.example/cb'], token_endpoint_auth_method: from });
    const jwks = { keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] };
    const refused = await update(client, {
      client_name: 'Auth Notes',
      redirect_uris: ['https://auth-notes.example/cb'],
      ...(to === undefined ? {} : { token_endpoint_auth_method: to }),
      ...(to === 'private_key_jwt' ? { jwks } : {}),
    });
    expect(refused.response.status).toBe(400);
    expect(refused.body.error).toBe('invalid_client_metadata');
    expect(refused.body.error_description).toMatch(/token_endpoint_auth_method.*register again/);
    expect((await read(client)).token_endpoint_auth_method).toBe(from);
  });

  it('lets a confidential client switch between the two ways of sending its secret, which keeps working', async () => {
    const client = await register(server.url, { client_name: 'Post Notes', redirect_uris: ['https://post-notes.example/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    const switched = await update(client, { client_name: 'Post Notes', redirect_uris: ['https://post-notes.example/cb'], token_endpoint_auth_method: 'client_secret_post' });
    expect(switched.response.status, JSON.stringify(switched.body)).toBe(200);
    expect(switched.body).not.toHaveProperty('client_secret');
    // The secret it registered with still authenticates it (an unknown code, not an unknown client).
    const { response, body } = await tokenRequest(server.url, {
      grant_type: 'authorization_code',
      code: 'whatever',
      redirect_uri: 'https://post-notes.example/cb',
      client_id: client.client_id,
      client_secret: client.client_secret as string,
      code_verifier: 'v'.repeat(43),
    });
    expect(body.error, JSON.stringify(body)).toBe('invalid_grant');
    expect(response.status).toBe(400);
  });

  it('answers an update without the registration access token with invalid_token, whatever it asks for', async () => {
    const client = await register(server.url, { client_name: 'Notes Three', redirect_uris: ['https://notes3.example/cb'] });
    const forged = await update(client, { client_name: 'Evil Exfil', redirect_uris: ['https://evil.test/cb'] }, 'not-the-token');
    expect(forged.response.status).toBe(401);
    expect(forged.body.error).toBe('invalid_token');
    const { row, events } = await updatesOf(client.client_id);
    expect(row?.name).toBe('Notes Three');
    expect(events).toEqual([]);
  });
});

describe('registration rate limit', () => {
  it('answers 429 with Retry-After past the per-address budget', async () => {
    const limited = await startServer({ database: 'embedded', env: { REGISTRATION_RATE_LIMIT: '3' } });
    try {
      const body = JSON.stringify({ client_name: 'Burst', redirect_uris: ['https://burst.example/cb'] });
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let index = 0; index < 5; index++) {
        const response = await fetch(`${limited.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get('retry-after');
      }
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    } finally {
      await limited.stop();
    }
  });

  it('on a dual-stack listener (HOST=::), counts each IPv4 client by its own address, and records that address', async () => {
    const dualStack = await startServer({ database: 'embedded', env: { REGISTRATION_RATE_LIMIT: '2', HOST: '::', HOSTNAME: '::' } });
    let current = dualStack;
    try {
      const body = JSON.stringify({ client_name: 'Dual stack', redirect_uris: ['https://dual.example/cb'] });
      const registerFrom = async (address: string) => (await fetchFrom(address)(`${dualStack.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
      const statuses = [await registerFrom('127.0.0.1'), await registerFrom('127.0.0.1'), await registerFrom('127.0.0.1')];
      expect(statuses).toEqual([201, 201, 429]);
      expect(await registerFrom('127.0.0.2')).toBe(201);
      expect(await registerFrom('::1')).toBe(201);
      let rows: { ip: string }[] = [];
      ({ server: current, result: rows } = await inspectDatabase(dualStack, (query) => query<{ ip: string }>(`SELECT ip FROM audit_events WHERE type = 'client.registered' ORDER BY id`)));
      expect(rows.map((row) => row.ip)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.2', '::1']);
    } finally {
      await current.stop();
    }
  });
});
