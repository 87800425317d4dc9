// docs/protocol.md §4: tokens — lifetimes and format, single-use codes, rotation with a 10 s replay window, theft
// detection, revocation, introspection, and nothing usable stored at rest.
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, Browser, clientAuthentication, connect, decide, openConsent, pkce, register, tokenRequest, type RegisteredClient } from '../helpers/oauth';
import { inspectDatabase } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { DATABASES } from '../helpers/databases';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

/** A compact ES256 JWS (RFC 7515), as a DPoP proof or a private_key_jwt client assertion is sent. */
function es256Jwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'ES256', ...header })}.${encode(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe.each(DATABASES)('tokens on the %s database', (kind) => {
  let server: RunningServer;
  let client: RegisteredClient;
  /** Every credential the tests saw, to search the database for at the end. */
  const credentials = new Set<string>();
  const remember = (...values: (string | undefined | null)[]) => {
    for (const value of values) if (value) credentials.add(value);
  };

  /** A code the member approved for `forClient` in a fresh browser, with its PKCE verifier. */
  async function approvedCode(forClient: RegisteredClient = client): Promise<{ code: string; verifier: string }> {
    const browser = new Browser(server.url);
    await browser.signIn(member.email, member.password);
    const { verifier, challenge } = pkce();
    const form = await openConsent(browser, authorizeUrl(server.url, { client: forClient, challenge }));
    return { code: (await decide(browser, form, { allow: true })).searchParams.get('code')!, verifier };
  }

  beforeAll(async () => {
    server = await startServer({ database: kind });
    client = await register(server.url, { client_name: 'Token Test', redirect_uris: ['https://app.example/callback'] });
    remember(client.registration_access_token);
  });
  afterAll(async () => server?.stop());

  const refresh = (refreshToken: string, clientId = client.client_id) => tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  it('issues an opaque mcp_at_ access token for an hour and a refresh token, never cached', async () => {
    const { code, verifier } = await approvedCode();
    const exchange = () =>
      tokenRequest(server.url, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://app.example/callback',
        client_id: client.client_id,
        code_verifier: verifier,
      });
    const { response, body } = await exchange();
    remember(code, body.access_token, body.refresh_token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.access_token).toMatch(/^mcp_at_[A-Za-z0-9_-]{30,}$/);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.refresh_token).toEqual(expect.any(String));
    expect(body.scope).toBe('mcp:read mcp:write');

    // A code works once; presented again it fails and takes what it issued with it (RFC 6749 §4.1.2).
    const again = await exchange();
    expect(again.response.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect((await refresh(body.refresh_token!)).body.error).toBe('invalid_grant');
  });

  it('refuses a code exchange without the right PKCE verifier', async () => {
    const { code } = await approvedCode();
    remember(code);
    const { response, body } = await tokenRequest(server.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://app.example/callback',
      client_id: client.client_id,
      code_verifier: pkce().verifier,
    });
    expect(response.status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('rotates on every refresh and answers a repeat within 10 s with the identical response', async () => {
    const { tokens, browser } = await connect(server.url, client, member);
    remember(
      tokens.access_token,
      tokens.refresh_token,
      ...browser.jar
        .entries()
        .filter(([name]) => name.startsWith('_'))
        .map(([, value]) => value),
    );
    const first = await refresh(tokens.refresh_token);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('cache-control')).toBe('no-store');
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.body.access_token).not.toBe(tokens.access_token);
    remember(first.body.access_token, first.body.refresh_token);

    const repeat = await refresh(tokens.refresh_token);
    expect(repeat.response.status).toBe(200);
    expect(repeat.body).toEqual(first.body);

    // The new refresh token works and rotates in turn.
    const next = await refresh(first.body.refresh_token!);
    expect(next.response.status).toBe(200);
    remember(next.body.access_token, next.body.refresh_token);
  });

  it('gives 50 parallel refreshes with one token the same new pair: exactly one rotation', async () => {
    const { tokens } = await connect(server.url, client, member);
    remember(tokens.access_token, tokens.refresh_token);
    const results = await Promise.all(Array.from({ length: 50 }, () => refresh(tokens.refresh_token)));
    expect(results.map((result) => result.response.status)).toEqual(Array(50).fill(200));
    const pairs = new Set(results.map((result) => `${result.body.access_token} ${result.body.refresh_token}`));
    expect(pairs.size).toBe(1);
    remember(results[0]!.body.access_token, results[0]!.body.refresh_token);
    // The one new refresh token carries the chain on (it was not rotated again behind the answers' backs).
    const next = await refresh(results[0]!.body.refresh_token!);
    expect(next.response.status, JSON.stringify(next.body)).toBe(200);
    remember(next.body.access_token, next.body.refresh_token);
  });

  it('does not answer a repeat from another client from the replay window', async () => {
    const other = await register(server.url, { client_name: 'Other', redirect_uris: ['https://other.example/cb'] });
    const { tokens } = await connect(server.url, client, member);
    remember(tokens.access_token, tokens.refresh_token, other.registration_access_token);
    expect((await refresh(tokens.refresh_token)).response.status).toBe(200);
    const stolen = await refresh(tokens.refresh_token, other.client_id);
    expect(stolen.response.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
  });

  it('treats a used refresh token after 10 s as theft: invalid_grant and the whole grant revoked', async () => {
    const { tokens } = await connect(server.url, client, member);
    const rotated = await refresh(tokens.refresh_token);
    remember(tokens.access_token, tokens.refresh_token, rotated.body.access_token, rotated.body.refresh_token);
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const late = await refresh(tokens.refresh_token);
    expect(late.response.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    // The thief's use killed the legitimate holder's newer token too.
    expect((await refresh(rotated.body.refresh_token!)).body.error).toBe('invalid_grant');
  }, 30_000);

  /** RFC 8707 spellings of the resource that are not PUBLIC_URL/mcp (resource.ts states the rule). */
  const foreignResources = () => ['https://evil.test/mcp', `${server.url}/mcp/`, `${server.url}/mcp?`, `${server.url}/x/../mcp`, `${server.url}/%6Dcp`, `${server.url}/mcp#fragment`];

  it('answers a refresh with a foreign resource invalid_target and changes nothing: the same refresh token then works', async () => {
    const own = await register(server.url, { client_name: 'Resource Mistake', redirect_uris: ['https://mistake.example/cb'] });
    const { tokens } = await connect(server.url, own, member);
    remember(own.registration_access_token, tokens.access_token, tokens.refresh_token);
    const refreshFor = (resource: string) => tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: own.client_id, resource });
    for (const resource of foreignResources()) {
      const refused = await refreshFor(resource);
      expect(refused.response.status, resource).toBe(400);
      expect(refused.body.error, resource).toBe('invalid_target');
    }
    // The honest client's retry: the refresh token was not spent, nothing was taken for theft.
    const retried = await refreshFor(`${server.url.replace('http://localhost', 'HTTP://LOCALHOST')}/mcp`);
    expect(retried.response.status, JSON.stringify(retried.body)).toBe(200);
    remember(retried.body.access_token, retried.body.refresh_token);
    const next = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: retried.body.refresh_token!, client_id: own.client_id });
    expect(next.response.status, JSON.stringify(next.body)).toBe(200);
    remember(next.body.access_token, next.body.refresh_token);
    const { result: reuse, server: restarted } = await inspectDatabase(server, (query) =>
      query<{ type: string }>(`SELECT type FROM audit_events WHERE client_id = $1 AND type IN ('refresh.reuse_detected', 'grant.revoked')`, [own.client_id]),
    );
    server = restarted;
    expect(reuse).toEqual([]);
  });

  it('answers a code exchange with a foreign resource invalid_target and changes nothing: the same code then works', async () => {
    const { code, verifier } = await approvedCode();
    remember(code);
    const exchange = (resource?: string) =>
      tokenRequest(server.url, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://app.example/callback',
        client_id: client.client_id,
        code_verifier: verifier,
        ...(resource ? { resource } : {}),
      });
    for (const resource of foreignResources()) {
      const refused = await exchange(resource);
      expect(refused.response.status, resource).toBe(400);
      expect(refused.body.error, resource).toBe('invalid_target');
    }
    const redeemed = await exchange(`${server.url}/mcp`);
    expect(redeemed.response.status, JSON.stringify(redeemed.body)).toBe(200);
    remember(redeemed.body.access_token, redeemed.body.refresh_token);
    expect((await refresh(redeemed.body.refresh_token!)).response.status).toBe(200);
  });

  it('rolls back a refresh the provider refuses after consuming the token: once the resource is served again, the same token works', async () => {
    // The provider resolves the grant's resource only after it has consumed the refresh token. With
    // PUBLIC_URL moved, the grant's resource is no longer the one served: invalid_target, from the
    // provider itself this time — and the answer must still change nothing.
    const { tokens } = await connect(server.url, client, member);
    remember(tokens.access_token, tokens.refresh_token);
    const original = server.restartOptions;
    await server.halt();
    const moved = await startServer({ ...original, env: { ...original.env, PUBLIC_URL: `http://127.0.0.1:${server.port}` } });
    try {
      const refused = await tokenRequest(`http://127.0.0.1:${server.port}`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
      expect(refused.response.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error).toBe('invalid_target');
    } finally {
      await moved.halt();
      server = await startServer(original);
    }
    const retried = await refresh(tokens.refresh_token);
    expect(retried.response.status, JSON.stringify(retried.body)).toBe(200);
    remember(retried.body.access_token, retried.body.refresh_token);
  });

  it('replaces the earlier grant when the same person approves the same client for the same org again', async () => {
    const first = await connect(server.url, client, member);
    const second = await connect(server.url, client, member);
    remember(first.tokens.access_token, first.tokens.refresh_token, second.tokens.access_token, second.tokens.refresh_token);
    expect((await refresh(first.tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(second.tokens.refresh_token)).response.status).toBe(200);
  });

  it('ends the whole grant when the client revokes either of its tokens (RFC 7009)', async () => {
    for (const which of ['access_token', 'refresh_token'] as const) {
      const { tokens } = await connect(server.url, client, member);
      remember(tokens.access_token, tokens.refresh_token);
      const response = await fetch(`${server.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.example' },
        body: new URLSearchParams({ token: tokens[which], client_id: client.client_id }).toString(),
      });
      expect(response.status, which).toBe(200);
      expect((await refresh(tokens.refresh_token)).body.error, which).toBe('invalid_grant');
    }
  });

  it('lets only confidential clients introspect (RFC 7662)', async () => {
    const confidential = await register(server.url, {
      client_name: 'Confidential',
      redirect_uris: ['https://conf.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    remember(confidential.client_secret, confidential.registration_access_token);
    const { tokens, browser } = await connect(server.url, confidential, member);
    remember(tokens.access_token, tokens.refresh_token, ...browser.jar.entries().map(([, value]) => value));
    const basic = `Basic ${Buffer.from(`${confidential.client_id}:${confidential.client_secret}`).toString('base64')}`;
    const introspect = (authorization: string | null, body: Record<string, string>) =>
      fetch(`${server.url}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        body: new URLSearchParams(body).toString(),
      });
    const active = await introspect(basic, { token: tokens.access_token });
    expect(active.status).toBe(200);
    expect(await active.json()).toMatchObject({ active: true, client_id: confidential.client_id, scope: 'mcp:read mcp:write' });
    const wrongSecret = await introspect(`Basic ${Buffer.from(`${confidential.client_id}:nope`).toString('base64')}`, { token: tokens.access_token });
    expect(wrongSecret.status).toBe(401);
    const publicClient = await introspect(null, { token: tokens.access_token, client_id: client.client_id });
    expect((await publicClient.json()) as Record<string, unknown>).not.toMatchObject({ active: true });
  });

  it("answers active:false and nothing else when a client introspects another client's token (RFC 7662 §2.2, §4)", async () => {
    const introspect = (caller: RegisteredClient, token: string, hint?: string) =>
      fetch(`${server.url}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...clientAuthentication(caller) },
        body: new URLSearchParams({ token, ...(hint ? { token_type_hint: hint } : {}) }).toString(),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
    const owner = await register(server.url, { client_name: 'Owner', redirect_uris: ['https://owner.example/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    const other = await register(server.url, { client_name: 'Other', redirect_uris: ['https://other.example/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    remember(owner.client_secret, owner.registration_access_token, other.client_secret, other.registration_access_token);
    const { tokens, browser } = await connect(server.url, owner, member);
    remember(tokens.access_token, tokens.refresh_token, ...browser.jar.entries().map(([, value]) => value));

    for (const [token, hint] of [
      [tokens.access_token, 'access_token'],
      [tokens.access_token, undefined],
      [tokens.refresh_token, 'refresh_token'],
      [tokens.refresh_token, undefined],
    ] as const) {
      const foreign = await introspect(other, token, hint);
      expect(foreign.status, `${hint}`).toBe(200);
      expect(foreign.body, `${hint}`).toEqual({ active: false });
    }

    const ownAccess = await introspect(owner, tokens.access_token);
    expect(ownAccess.body).toMatchObject({ active: true, client_id: owner.client_id, scope: 'mcp:read mcp:write', sub: expect.any(String), exp: expect.any(Number) });
    const ownRefresh = await introspect(owner, tokens.refresh_token, 'refresh_token');
    expect(ownRefresh.body).toMatchObject({ active: true, client_id: owner.client_id, sub: expect.any(String) });
  });

  it('lets only one of 50 parallel exchanges of a code succeed, and revokes what it issued', async () => {
    const { code, verifier } = await approvedCode();
    remember(code);
    const exchange = () => tokenRequest(server.url, { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example/callback', client_id: client.client_id, code_verifier: verifier });
    const results = await Promise.all(Array.from({ length: 50 }, exchange));
    expect(results.map((result) => result.response.status).sort()).toEqual([200, ...Array(49).fill(400)]);
    const issued = results.find((result) => result.response.status === 200)!.body;
    remember(issued.access_token, issued.refresh_token);
    expect((await refresh(issued.refresh_token!)).body.error).toBe('invalid_grant');
  });

  it("answers a confidential client's repeat from the replay window only with its secret", async () => {
    const confidential = await register(server.url, {
      client_name: 'Confidential replay',
      redirect_uris: ['https://confreplay.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const { tokens } = await connect(server.url, confidential, member);
    remember(confidential.client_secret, tokens.access_token, tokens.refresh_token);
    const params = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token };
    const first = await tokenRequest(server.url, params, clientAuthentication(confidential));
    expect(first.response.status).toBe(200);
    remember(first.body.access_token, first.body.refresh_token);
    const repeat = await tokenRequest(server.url, params, clientAuthentication(confidential));
    expect(repeat.body).toEqual(first.body);
    const thief = await tokenRequest(server.url, { ...params, client_id: confidential.client_id });
    expect(thief.response.status).toBe(401);
    expect(thief.body.error).toBe('invalid_client');
  });

  it('does not disconnect an app when another client presents its token for revocation', async () => {
    const { tokens } = await connect(server.url, client, member);
    const other = await register(server.url, { client_name: 'Meddler', redirect_uris: ['https://meddler.example/cb'] });
    remember(tokens.access_token, tokens.refresh_token, other.registration_access_token);
    const response = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: other.client_id }).toString(),
    });
    expect(response.status).toBe(200);
    const still = await refresh(tokens.refresh_token);
    expect(still.response.status).toBe(200);
    remember(still.body.access_token, still.body.refresh_token);
  });

  it('revokes the grants of a client that deletes its registration (RFC 7592)', async () => {
    const leaving = await register(server.url, { client_name: 'Leaving', redirect_uris: ['https://leaving.example/cb'] });
    const { tokens } = await connect(server.url, leaving, member);
    remember(leaving.registration_access_token, tokens.access_token, tokens.refresh_token);
    const deleted = await fetch(leaving.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${leaving.registration_access_token}` } });
    expect(deleted.status).toBe(204);
    const call = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(call.status).toBe(401);
  });

  it('ignores a DPoP proof at the token endpoint (RFC 9449 §5): the tokens are Bearer tokens that /mcp accepts', async () => {
    // A client asking for DPoP-bound tokens, on registration and at the token endpoint: /mcp takes only
    // Bearer tokens, so a DPoP-bound token would be one that works nowhere.
    const dpopClient = await register(server.url, { client_name: 'DPoP App', redirect_uris: ['https://dpop.example/cb'], dpop_bound_access_tokens: true });
    remember(dpopClient.registration_access_token);
    expect(dpopClient.dpop_bound_access_tokens).toBeUndefined();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const proof = () => es256Jwt({ typ: 'dpop+jwt', jwk }, { jti: randomUUID(), htm: 'POST', htu: `${server.url}/oauth/token`, iat: Math.floor(Date.now() / 1000) }, privateKey);

    const { code, verifier } = await approvedCode(dpopClient);
    const exchanged = await tokenRequest(
      server.url,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://dpop.example/cb', client_id: dpopClient.client_id, code_verifier: verifier },
      { dpop: proof() },
    );
    remember(code, exchanged.body.access_token, exchanged.body.refresh_token);
    expect(exchanged.response.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body.token_type).toBe('Bearer');
    expect((await postMcp(server.url, exchanged.body.access_token!, rpc('ping'))).status).toBe(200);

    const refreshed = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token!, client_id: dpopClient.client_id }, { dpop: proof() });
    remember(refreshed.body.access_token, refreshed.body.refresh_token);
    expect(refreshed.response.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.token_type).toBe('Bearer');
    expect((await postMcp(server.url, refreshed.body.access_token!, rpc('ping'))).status).toBe(200);
  });

  it('accepts every client authentication method discovery advertises: client_secret_post and private_key_jwt too', async () => {
    const exchange = async (client: RegisteredClient, authentication: { params?: Record<string, string>; headers?: Record<string, string> }) => {
      const { code, verifier } = await approvedCode(client);
      const params = { grant_type: 'authorization_code', code, redirect_uri: client.redirect_uris[0]!, code_verifier: verifier, ...authentication.params };
      const result = await tokenRequest(server.url, params, authentication.headers);
      remember(code, result.body.access_token, result.body.refresh_token);
      return result;
    };

    const post = await register(server.url, { client_name: 'Post', redirect_uris: ['https://post.example/cb'], token_endpoint_auth_method: 'client_secret_post' });
    remember(post.client_secret, post.registration_access_token);
    const posted = await exchange(post, { params: { client_id: post.client_id, client_secret: post.client_secret! } });
    expect(posted.response.status, JSON.stringify(posted.body)).toBe(200);

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'assertion-key', use: 'sig', alg: 'ES256' };
    const signed = await register(server.url, {
      client_name: 'Signed',
      redirect_uris: ['https://signed.example/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [jwk] },
    });
    remember(signed.registration_access_token);
    const now = Math.floor(Date.now() / 1000);
    const assertion = es256Jwt({ kid: 'assertion-key' }, { iss: signed.client_id, sub: signed.client_id, aud: server.url, jti: randomUUID(), iat: now, exp: now + 60 }, privateKey);
    const asserted = await exchange(signed, {
      params: { client_id: signed.client_id, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
    });
    expect(asserted.response.status, JSON.stringify(asserted.body)).toBe(200);
    expect((await postMcp(server.url, asserted.body.access_token!, rpc('ping'))).status).toBe(200);
  });

  it('stores no credential it issued (a dump of every table contains none), and audited every step', async () => {
    expect(credentials.size).toBeGreaterThan(20);
    const denier = new Browser(server.url);
    await denier.signIn(member.email, member.password);
    const form = await openConsent(denier, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    expect((await decide(denier, form, { allow: false })).searchParams.get('error')).toBe('access_denied');
    remember(
      ...denier.jar
        .entries()
        .filter(([name]) => name.startsWith('_'))
        .map(([, value]) => value),
    );
    const {
      result: { dump, audit },
      server: restarted,
    } = await inspectDatabase(server, async (query) => {
      const audit = await query<{ type: string; reason: string | null; n: string }>(`SELECT type, data->>'reason' AS reason, count(*)::text AS n FROM audit_events GROUP BY 1, 2`);
      const tables = await query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'");
      let text = '';
      for (const { table_name } of tables) {
        text += JSON.stringify(await query(`SELECT * FROM "${table_name}"`), (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
      }
      return { dump: text, audit };
    });
    server = restarted;
    const kinds = audit.map((row) => (row.reason ? `${row.type}:${row.reason}` : row.type));
    expect(kinds).toEqual(
      expect.arrayContaining([
        'client.registered',
        'consent.granted',
        'consent.denied',
        'token.issued',
        'token.refreshed',
        'refresh.reuse_detected',
        'grant.revoked:refresh_reuse',
        'grant.revoked:replaced',
        'grant.revoked:client_revoked_token',
        'grant.revoked:code_reuse',
        'grant.revoked:client_deleted',
      ]),
    );
    expect(dump.length).toBeGreaterThan(1000);
    const found = [...credentials].filter((credential) => dump.includes(credential));
    expect(found).toEqual([]);
  });
});
