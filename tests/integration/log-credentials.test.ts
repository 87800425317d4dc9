// No credential is ever written to the server's log (issue: reliability and security, item 5). A whole
// run of the OAuth and MCP flows — registration (public and confidential), authorization, consent, code
// exchange, refreshes, a replayed refresh token, a replayed code, /mcp calls with good and bad tokens,
// RFC 7592 management, revocation, failed and successful sign-ins — then every token, code, secret and
// password the run produced or used is looked for in everything the server printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { clientAuthentication, connect, register, tokenRequest } from '../helpers/oauth';
import { signIn } from '../helpers/session';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

describe.each(DATABASES)('credentials in the log (%s database)', (kind) => {
  let server: RunningServer;
  const credentials = new Map<string, string>();
  const remember = (what: string, value: string | undefined | null) => {
    if (value) credentials.set(value, what);
  };

  beforeAll(async () => {
    server = await startServer({ database: kind });
    const url = server.url;
    remember('demo password', TEST_DEMO_PASSWORD);

    const publicClient = await register(url, { client_name: 'Log Scan Public', redirect_uris: ['https://logscan.example/cb'] });
    const confidential = await register(url, {
      client_name: 'Log Scan Confidential',
      redirect_uris: ['https://logscan.example/cb2'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    for (const client of [publicClient, confidential]) {
      remember('registration access token', client.registration_access_token);
      remember('client secret', client.client_secret);
    }

    for (const client of [publicClient, confidential]) {
      const { tokens, grantRedirect } = await connect(url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD });
      const code = grantRedirect.searchParams.get('code');
      remember('authorization code', code);
      remember('access token', tokens.access_token);
      remember('refresh token', tokens.refresh_token);
      // A replayed code (refused, and the grant revoked): its value must not be echoed either.
      await tokenRequest(url, { grant_type: 'authorization_code', code: code!, redirect_uri: client.redirect_uris[0]!, client_id: client.client_id }, clientAuthentication(client));
    }

    const { tokens } = await connect(url, publicClient, { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD });
    remember('access token', tokens.access_token);
    remember('refresh token', tokens.refresh_token);
    expect((await postMcp(url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }))).status).toBe(200);
    await postMcp(url, `${tokens.access_token}x`, rpc('tools/list'));
    const refreshed = await tokenRequest(url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: publicClient.client_id });
    expect(refreshed.response.status).toBe(200);
    remember('access token', refreshed.body.access_token);
    remember('refresh token', refreshed.body.refresh_token);
    // The rotated refresh token again: reuse, which revokes the grant.
    await tokenRequest(url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: publicClient.client_id });
    await postMcp(url, refreshed.body.access_token!, rpc('tools/list'));

    await fetch(confidential.registration_client_uri, { headers: { authorization: `Bearer ${confidential.registration_access_token}` } });
    await fetch(confidential.registration_client_uri, { headers: { authorization: 'Bearer not-the-token' } });

    const wrong = 'Wrong-password-for-the-log-scan-42';
    remember('a mistyped password', wrong);
    await signIn(url, 'member@acme.test', wrong);
    await signIn(url, 'nobody@acme.test', wrong);
    const { response } = await signIn(url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    for (const cookie of response.headers.getSetCookie()) remember('cookie', cookie.split(';')[0]!.split('=').slice(1).join('='));
  });
  afterAll(async () => server?.stop());

  it('prints none of the tokens, codes, secrets, passwords and cookies the run produced', async () => {
    expect(credentials.size).toBeGreaterThan(15);
    const log = server.output();
    // The scan reads what the server really printed (its start-up lines among them).
    expect(log).toContain('gatehouse: ready at');
    const found = [...credentials].filter(([value]) => value.length >= 8 && log.includes(value)).map(([, what]) => what);
    expect(found).toEqual([]);
  });
});
