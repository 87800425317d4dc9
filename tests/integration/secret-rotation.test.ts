// Rotating AUTH_SECRET (`npm run secret:rotate`, SECURITY.md): the stored keys are re-sealed with the new
// secret, so after a restart with it the same keys sign (same JWKS), issued tokens keep working and people
// can sign in; a wrong current secret or a bad new one changes nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { DATABASES } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { clientAuthentication, connect, register, tokenRequest, type RegisteredClient, type Tokens } from '../helpers/oauth';
import { signIn } from '../helpers/session';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const ROTATE = 'lib/cli/rotate-secret.ts';

async function jwks(server: RunningServer): Promise<unknown> {
  const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as { jwks_uri: string };
  const response = await fetch(metadata.jwks_uri);
  expect(response.status).toBe(200);
  return response.json();
}

describe.each(DATABASES)('AUTH_SECRET rotation (%s database)', (kind) => {
  let server: RunningServer;
  let client: RegisteredClient;
  let tokens: Tokens;

  beforeAll(async () => {
    server = await startServer({ database: kind });
    client = await register(server.url, { client_name: 'Secret Rotation', redirect_uris: ['https://secret.example/cb'] });
    tokens = (await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD })).tokens;
  });
  afterAll(async () => server?.stop());

  it('re-seals the keys: same JWKS, tokens and sign-in keep working under the new secret', async () => {
    const before = await jwks(server);
    await server.halt();

    const tooShort = await runCli(ROTATE, [], { ...server.env, NEW_AUTH_SECRET: 'short' });
    expect(tooShort.code).toBe(1);
    expect(tooShort.stderr).toMatch(/at least 32 characters/);
    const wrongCurrent = await runCli(ROTATE, [], { ...server.env, AUTH_SECRET: randomBytes(32).toString('base64url'), NEW_AUTH_SECRET: randomBytes(32).toString('base64url') });
    expect(wrongCurrent.code).toBe(1);
    expect(wrongCurrent.stderr).toMatch(/cannot be decrypted with the current AUTH_SECRET: nothing was changed/);

    const newSecret = randomBytes(48).toString('base64url');
    const rotated = await runCli(ROTATE, [], { ...server.env, NEW_AUTH_SECRET: newSecret });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/Re-sealed 3 keys/);

    // The embedded database's secret lives in DATA_DIR (the tool rewrote it); PostgreSQL's in AUTH_SECRET.
    const env = kind === 'postgres' ? { ...server.env, AUTH_SECRET: newSecret } : server.env;
    server = await startServer({ ...server.restartOptions, env });
    expect(await jwks(server)).toEqual(before);
    const whoami = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }));
    expect(whoami.status).toBe(200);
    const refreshed = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }, clientAuthentication(client));
    expect(refreshed.response.status, JSON.stringify(refreshed.body)).toBe(200);
    const { response } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    expect(response.status).toBe(200);
  });
});
