// SPEC §3: Client ID Metadata Documents — a client identified by an https URL, without registering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentServer, type DocumentServer } from '../helpers/https-server';
import { authorizeUrl, Browser, connect, pkce, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

let documents: DocumentServer;
let server: RunningServer;
let client: RegisteredClient;

beforeAll(async () => {
  documents = await startDocumentServer();
  const clientId = `${documents.origin}/apps/cimd-app.json`;
  documents.documents.set('/apps/cimd-app.json', {
    client_id: clientId,
    client_name: 'CIMD App',
    application_type: 'native',
    redirect_uris: ['https://cimd-app.example/callback', 'cimdapp://oauth/callback', 'http://127.0.0.1/callback'],
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
    expect(html).toContain('Unverified');
    expect(html).toMatch(/data-testid="identity-host">127\.0\.0\.1</);

    const { tokens } = await connect(server.url, client, member);
    expect(tokens.access_token).toMatch(/^mcp_at_/);
  });

  it('uses the redirect URIs the document declares: a custom scheme, and loopback on any port', async () => {
    const scheme = await connect(server.url, client, member, { redirectUri: 'cimdapp://oauth/callback' });
    expect(scheme.grantRedirect.protocol).toBe('cimdapp:');
    const loopback = await connect(server.url, client, member, { redirectUri: 'http://127.0.0.1:41234/callback' });
    expect(loopback.grantRedirect.host).toBe('127.0.0.1:41234');
  });

  it('refuses a redirect URI the document does not declare', async () => {
    const { challenge } = pkce();
    const response = await fetch(authorizeUrl(server.url, { client, challenge, redirectUri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/redirect_uri/);
  });

  it('refuses a document whose client_id does not match its URL', async () => {
    const url = `${documents.origin}/apps/liar.json`;
    documents.documents.set('/apps/liar.json', { client_id: `${documents.origin}/apps/other.json`, client_name: 'Liar', redirect_uris: ['https://liar.example/cb'] });
    const response = await fetch(
      authorizeUrl(server.url, { client: { ...client, client_id: url, redirect_uris: ['https://liar.example/cb'] }, challenge: pkce().challenge }),
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid_client/);
  });
});

describe('without the test allowance', () => {
  it('never fetches a document from a loopback or private address', async () => {
    const plain = await startServer({ database: 'embedded', env: { NODE_EXTRA_CA_CERTS: documents.caBundle } });
    try {
      const response = await fetch(authorizeUrl(plain.url, { client, challenge: pkce().challenge }), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/invalid_client/);
    } finally {
      await plain.stop();
    }
  });
});
