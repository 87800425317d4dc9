// docs/protocol.md §3: Client ID Metadata Documents — a client identified by an https URL, without registering.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/cli/standalone';
import { startDocumentServer, type DocumentServer } from '../helpers/https-server';
import { inspectDatabase } from '../helpers/inspect';
import { authorizeUrl, Browser, connect, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

let documents: DocumentServer;
let server: RunningServer;
let client: RegisteredClient;

beforeAll(async () => {
  documents = await startDocumentServer({ hostnames: ['private.test', 'rebind.test', 'mixed.test'] });
  const clientId = `${documents.origin}/apps/cimd-app.json`;
  documents.documents.set('/apps/cimd-app.json', {
    client_id: clientId,
    client_name: 'CIMD App',
    application_type: 'native',
    redirect_uris: ['https://cimd-app.example/callback', 'com.example.cimdapp://oauth/callback', 'http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  client = { client_id: clientId, redirect_uris: ['https://cimd-app.example/callback'], registration_access_token: '', registration_client_uri: '' };
  server = await startServer({
    database: 'embedded',
    env: {
      GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS: documents.origin,
      GATEHOUSE_TEST_CIMD_ACKNOWLEDGE: 'I understand this disables SSRF protection for loopback origins',
      NODE_EXTRA_CA_CERTS: documents.caBundle,
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await documents?.close();
});

describe('Client ID Metadata Documents', () => {
  it('connects a client known only by its document URL, showing the document host on the consent screen', async () => {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const { challenge } = pkce();
    const { response, url } = await browser.follow(authorizeUrl(server.url, { client, challenge }));
    expect(response.status, url).toBe(200);
    const html = await response.text();
    expect(html).toContain('CIMD App');
    // The document was fetched over https from that domain: evidence, so not "Unverified".
    expect(html).not.toContain('Unverified');
    expect(html).toContain('Verified domain');
    expect(html).toMatch(/data-testid="identity-host">127\.0\.0\.1</);

    const { tokens } = await connect(server.url, client, member);
    expect(tokens.access_token).toMatch(/^mcp_at_/);
  });

  it('makes the document URL an app of its own when the client is first used', async () => {
    const { result, server: next } = await inspectDatabase(server, (query) =>
      query(`SELECT a.key, a.kind, a.display_name, a.registration_count FROM apps a JOIN clients c ON c.app_id = a.id WHERE c.client_id = $1`, [client.client_id]),
    );
    server = next;
    expect(result).toEqual([{ key: `document:${client.client_id}`, kind: 'metadata_document', display_name: 'CIMD App', registration_count: 1 }]);
  });

  it('uses the redirect URIs the document declares: a custom scheme, and loopback on any port', async () => {
    const scheme = await connect(server.url, client, member, { redirectUri: 'com.example.cimdapp://oauth/callback' });
    expect(scheme.grantRedirect.protocol).toBe('com.example.cimdapp:');
    const loopback = await connect(server.url, client, member, { redirectUri: 'http://127.0.0.1:41234/callback' });
    expect(loopback.grantRedirect.host).toBe('127.0.0.1:41234');
  });

  it('refuses a redirect URI the document does not declare', async () => {
    const { challenge } = pkce();
    const response = await fetch(authorizeUrl(server.url, { client, challenge, redirectUri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/redirect_uri/);
  });

  /** An authorization request naming the document at `url` is refused before consent: 400 invalid_client. */
  async function expectDocumentRefused(url: string, redirectUri: string): Promise<void> {
    const response = await fetch(authorizeUrl(server.url, { client: { ...client, client_id: url, redirect_uris: [redirectUri] }, challenge: pkce().challenge }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid_client/);
  }

  it.each([
    ['a single-word scheme no client uses', 'myapp://oauth/callback'],
    ['a browser-internal scheme', 'chrome://settings'],
    ['a backslash', 'https://evil.example\\@shady.example/cb'],
    ['https without slashes', 'https:evil.example/cb'],
  ])('refuses a document that declares a redirect URI with %s, as registration would', async (_what, uri) => {
    const path = `/apps/shady-${encodeURIComponent(uri).replace(/%/g, '')}.json`;
    const url = `${documents.origin}${path}`;
    documents.documents.set(path, { client_id: url, client_name: 'Shady', application_type: 'native', redirect_uris: ['https://shady.example/cb', uri], token_endpoint_auth_method: 'none' });
    await expectDocumentRefused(url, 'https://shady.example/cb');
  });

  it.each([
    ['jwks_uri', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.example/jwks.json' }],
    ['sector_identifier_uri', { token_endpoint_auth_method: 'none', sector_identifier_uri: 'https://keys.example/sector.json' }],
  ])('refuses a document that names %s, as registration would: the provider would fetch it inside a transaction', async (field, extra) => {
    const path = `/apps/remote-${field}.json`;
    const url = `${documents.origin}${path}`;
    documents.documents.set(path, { client_id: url, client_name: 'Remote Keys', redirect_uris: ['https://remote.example/cb'], ...extra });
    await expectDocumentRefused(url, 'https://remote.example/cb');
  });

  it.each([
    ['a right-to-left override in its name', { client_name: 'Trusted\u202Eeton' }],
    ['a zero-width space in its name', { client_name: 'Trus\u200Bted' }],
    ['a bidirectional isolate in its client_uri', { client_uri: 'https://shady.example/\u2067home' }],
  ])('refuses a document with %s, as registration would', async (_what, fields) => {
    const path = `/apps/invisible-${Object.keys(fields)[0]}-${encodeURIComponent(Object.values(fields)[0]!).replace(/%/g, '')}.json`;
    const url = `${documents.origin}${path}`;
    documents.documents.set(path, { client_id: url, client_name: 'Shady', application_type: 'native', redirect_uris: ['https://shady.example/cb'], token_endpoint_auth_method: 'none', ...fields });
    await expectDocumentRefused(url, 'https://shady.example/cb');
  });

  it('refuses a document whose client_id does not match its URL', async () => {
    const url = `${documents.origin}/apps/liar.json`;
    documents.documents.set('/apps/liar.json', { client_id: `${documents.origin}/apps/other.json`, client_name: 'Liar', redirect_uris: ['https://liar.example/cb'] });
    await expectDocumentRefused(url, 'https://liar.example/cb');
  });
});

describe('a slow document server', () => {
  /** A document its server takes 2 s to answer (the provider waits up to 2.5 s). */
  function slowDocument(name: string): string {
    const clientId = `${documents.origin}/apps/${name}.json`;
    documents.documents.set(`/apps/${name}.json`, {
      client_id: clientId,
      client_name: 'Slow App',
      redirect_uris: ['https://slow-app.example/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    documents.delays.set(`/apps/${name}.json`, 2_000);
    return clientId;
  }

  it('holds no database connection while a document is fetched, for a revocation or an RFC 7592 request naming it', async () => {
    const registered = await register(server.url, { client_name: 'Registered App', redirect_uris: ['https://registered.example/cb'] });
    const revokingFor = slowDocument('slow-revoke');
    const managed = slowDocument('slow-manage');
    const revocation = fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-a-token-of-anyone', client_id: revokingFor }).toString(),
    });
    const management = fetch(`${server.url}/oauth/register/${encodeURIComponent(managed)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${registered.registration_access_token}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // both are waiting on the document server now
    const started = Date.now();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(Date.now() - started, 'the embedded database answered /readyz at once').toBeLessThan(1_000);

    expect((await revocation).status).toBe(200); // RFC 7009 §2.2: an unknown token is no error
    // A document URL names no registration: refused without fetching it, and the registration token
    // presented is not spent on it.
    const refused = await management;
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_token' });
    expect(documents.requests.some((request) => request.endsWith(' /apps/slow-manage.json'))).toBe(false);
    const own = await fetch(registered.registration_client_uri, { headers: { authorization: `Bearer ${registered.registration_access_token}` } });
    expect(own.status).toBe(200);
  });
});

describe('redirects', () => {
  it('never follows a redirect from a document URL, not even to a valid document', async () => {
    const moved = `${documents.origin}/apps/moved.json`;
    documents.redirects.set('/apps/moved.json', `${documents.origin}/apps/moved-here.json`);
    documents.documents.set('/apps/moved-here.json', { client_id: moved, client_name: 'Moved', redirect_uris: ['https://moved.example/cb'] });
    const response = await fetch(authorizeUrl(server.url, { client: { ...client, client_id: moved, redirect_uris: ['https://moved.example/cb'] }, challenge: pkce().challenge }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid_client/);
    expect(documents.requests.filter((request) => request.endsWith(' /apps/moved.json')).length).toBeGreaterThan(0);
    expect(documents.requests.some((request) => request.endsWith('/apps/moved-here.json'))).toBe(false);
  });
});

// SSRF: the check applies to the address actually connected to, whatever DNS answered before.
describe('without the test allowance', () => {
  let plain: RunningServer;
  let dnsLog: string;
  beforeAll(async () => {
    dnsLog = join(mkdtempSync(join(tmpdir(), 'gatehouse-dns-')), 'lookups.log');
    writeFileSync(dnsLog, '');
    // 2001:4860::8888 is a public address this machine cannot reach: connecting to it fails at once.
    const table = {
      'private.test': [['127.0.0.1']],
      'mixed.test': [['2001:4860::8888', '127.0.0.1']],
      'rebind.test': [['2001:4860::8888'], ['127.0.0.1']],
    };
    plain = await startServer({
      database: 'embedded',
      env: {
        NODE_EXTRA_CA_CERTS: documents.caBundle,
        NODE_OPTIONS: `--require ${join(PROJECT_ROOT, 'tests', 'helpers', 'dns-override.cjs')}`,
        GATEHOUSE_TEST_DNS: JSON.stringify(table),
        GATEHOUSE_TEST_DNS_LOG: dnsLog,
      },
    });
  });
  afterAll(async () => plain?.stop());

  /** Asks the plain server to use the document at `url`, which says it is `url` and would be valid. */
  async function tryDocument(url: string) {
    const path = new URL(url).pathname;
    documents.documents.set(path, { client_id: url, client_name: 'Reachable', redirect_uris: ['https://reach.example/cb'] });
    const response = await fetch(authorizeUrl(plain.url, { client: { ...client, client_id: url, redirect_uris: ['https://reach.example/cb'] }, challenge: pkce().challenge }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid_client/);
    expect(documents.requests.filter((request) => request.endsWith(` ${path}`))).toEqual([]);
  }

  const lookups = (host: string) =>
    readFileSync(dnsLog, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${host} `));

  it('never fetches a document from a loopback address', async () => {
    await tryDocument(`${documents.origin}/apps/loopback.json`);
  });

  it('never fetches a document from a host name that resolves to a loopback address', async () => {
    await tryDocument(`https://private.test:${documents.port}/apps/private.json`);
    expect(lookups('private.test').length).toBeGreaterThan(0);
  });

  it('checks the address it connected to when DNS answers a public address first and a loopback one second', async () => {
    await tryDocument(`https://mixed.test:${documents.port}/apps/mixed.json`);
    expect(lookups('mixed.test').length).toBeGreaterThan(0);
  });

  it('checks the address it connected to when the answer changes from public to loopback between lookups', async () => {
    // Two attempts: whichever lookup a check would use, one of them connects to what the second answer names.
    await tryDocument(`https://rebind.test:${documents.port}/apps/rebind.json`);
    await tryDocument(`https://rebind.test:${documents.port}/apps/rebind-again.json`);
    expect(lookups('rebind.test').at(-1)).toBe('rebind.test 127.0.0.1');
  });
});
