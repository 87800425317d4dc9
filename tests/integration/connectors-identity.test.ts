// The identity assertion (docs/connectors.md, Who is acting): every forwarded call carries a JWT signed with
// Gatehouse's own keys, for that connector only, naming the person, the organization, the app, the
// connection and its scopes. The upstream here is the one the docs show (tests/helpers/identity-upstream.ts):
// built on the SDK, it verifies the assertion at /oauth/jwks with jose — and it refuses an ID token signed
// with the same keys, which is what the assertion's own `typ` is for (RFC 8725 §3.11).
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityUpstream } from '../helpers/identity-upstream';
import { runCli } from '../helpers/cli';
import { inspectDatabase } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, type Tokens } from '../helpers/oauth';
import { type RunningServer, startServer, TEST_DEMO_PASSWORD } from '../helpers/server';

const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

describe('the identity assertion sent upstream', () => {
  let server: RunningServer;
  let upstream: Awaited<ReturnType<typeof startIdentityUpstream>>;
  let tokens: Tokens & { id_token?: string };
  let readOnly: Tokens;

  beforeAll(async () => {
    server = await startServer({ database: 'postgres', env: { CONNECTOR_REFRESH_SECONDS: '86400', KEY_RELOAD_SECONDS: '1' } });
    upstream = await startIdentityUpstream(server.url);
    const added = await runCli('lib/cli/connectors.ts', ['add', 'ident', upstream.url, '--orgs', 'acme'], server.env);
    expect(added.code, added.stderr).toBe(0);
    const client = await register(server.url, { client_name: 'Identity Test', redirect_uris: ['https://identity.example/cb'] });
    ({ tokens } = await connect(server.url, client, MEMBER, { scope: 'openid mcp:read mcp:write' }));
    // Another app: a second approval of the same app in the same org would replace the first grant.
    const other = await register(server.url, { client_name: 'Identity Test Reader', redirect_uris: ['https://identity-reader.example/cb'] });
    ({ tokens: readOnly } = await connect(server.url, other, MEMBER, { scopes: ['mcp:read'] }));
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await upstream?.stop();
  });

  const whoIsActing = async (token: string) => {
    const reply = await postMcp(server.url, token, rpc('tools/call', { name: 'ident__who_is_acting', arguments: {} }));
    expect(reply.status).toBe(200);
    return reply.body!.result as { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError: boolean };
  };

  it('tells the upstream who is acting, in an assertion it verifies at /oauth/jwks', async () => {
    const result = await whoIsActing(tokens.access_token);
    expect(result.content[0]!.text).toBe('member@acme.test in Acme');
    expect(result.isError).toBe(false);
    const whoami = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
    const me = whoami.body!.result.structuredContent as { organization: { id: string }; client: { id: string } };
    const claims = result.structuredContent!;
    expect(claims).toMatchObject({ email: 'member@acme.test', org_name: 'Acme', role: 'member', scope: 'mcp:read mcp:write', iss: server.url, aud: upstream.url });
    expect(claims.org_id).toBe(me.organization.id);
    expect(claims.client_id).toBe(me.client.id);
    const { result: people } = await inspectDatabase(server, (query) => query<{ id: string }>(`SELECT id FROM people WHERE email = 'member@acme.test'`));
    expect(claims.sub).toBe(people[0]!.id);
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    expect(claims.grant_id).toEqual(expect.any(String));
  });

  it("names the connection's own scopes, and makes a new assertion for every call", async () => {
    const first = (await whoIsActing(readOnly.access_token)).structuredContent!;
    const second = (await whoIsActing(readOnly.access_token)).structuredContent!;
    expect(first.scope).toBe('mcp:read');
    expect(first.jti).not.toBe(second.jti);
    expect(first.grant_id).toBe(second.grant_id);
    const other = (await whoIsActing(tokens.access_token)).structuredContent!;
    expect(other.grant_id).not.toBe(first.grant_id);
    expect(other.client_id).not.toBe(first.client_id);
  });

  it('is refused by that upstream when it is not an identity assertion: an ID token signed with the same keys', async () => {
    expect(tokens.id_token).toBeTruthy();
    expect(decodeProtectedHeader(tokens.id_token!).typ).not.toBe('gatehouse-identity+jwt');
    expect(decodeJwt(tokens.id_token!).iss).toBe(server.url);
    await expect(upstream.whoIsActing(tokens.id_token!)).rejects.toThrow(/typ/);
    await expect(upstream.whoIsActing(undefined)).rejects.toThrow(/no identity assertion/);
  });

  it('is signed with the new key after a rotation, and still verifies', async () => {
    const before = (await whoIsActing(tokens.access_token)).structuredContent!;
    expect(before.kid).toBe('initial-es256');
    const rotated = await runCli('lib/cli/rotate-keys.ts', [], server.env);
    expect(rotated.code, rotated.stderr).toBe(0);
    // Instances pick up rotated keys within KEY_RELOAD_SECONDS (1 s here); the upstream fetches the JWKS
    // again when an assertion names a key it has not seen, at most every 5 s (its cooldownDuration): until
    // then it refuses, so the poll allows for the cooldown and a loaded machine.
    await expect
      .poll(
        async () => {
          const result = await whoIsActing(tokens.access_token);
          expect(result.isError, result.content[0]!.text).toBe(false);
          return result.structuredContent!.kid;
        },
        { timeout: 30_000, interval: 500 },
      )
      .not.toBe('initial-es256');
    const jwks = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const after = (await whoIsActing(tokens.access_token)).structuredContent!;
    expect(jwks.keys.map((key) => key.kid)).toContain(after.kid);
  }, 60_000);
});
