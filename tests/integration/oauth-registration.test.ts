// SPEC §3: dynamic client registration (RFC 7591, RFC 7592) — what real clients send succeeds, what is
// dangerous is refused, and secrets never come back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/cli/standalone';
import { fetchFrom } from '../helpers/from-address';
import { inspectDatabase } from '../helpers/inspect';
import { register, tokenRequest } from '../helpers/oauth';
import { startServer, type RunningServer } from '../helpers/server';

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
      const registerFrom = async (address: string) =>
        (await fetchFrom(address)(`${dualStack.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
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
