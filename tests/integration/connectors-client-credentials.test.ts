// Connectors whose upstream takes OAuth access tokens (docs/connectors.md, Client credentials), end to end:
// a real authorization server started here (a second oidc-provider with the client-credentials grant,
// resource indicators and introspection: tests/helpers/token-server.ts), real SDK upstreams that require a
// bearer token and introspect it at that server on every request, connectors added with the command line,
// and /mcp called by a person connected through OAuth. What is shown: adding needs a token (a wrong secret
// is refused and nothing is stored); a call carries a valid token; one token request serves many
// concurrent calls and the token is reused until shortly before it expires; a revoked or expired token is
// answered 401, replaced once, and the call goes through; an upstream that keeps refusing gets exactly one
// resend and the caller an in-band error; the secret can be replaced; secret:rotate keeps it working; and
// neither the secret nor a token is ever in an audit event, `list`, a server log, the call log or an error.
//
// On PostgreSQL (the command line runs beside the server) and, shorter, on the embedded database.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../helpers/cli';
import { type McpReply, postMcp, rpc } from '../helpers/mcp';
import { connect, register, type Tokens } from '../helpers/oauth';
import { type RunningServer, startServer, TEST_DEMO_PASSWORD } from '../helpers/server';
import { GATEHOUSE_CLIENT, GATEHOUSE_POST_CLIENT, introspectingVerifier, type RunningTokenServer, startTokenServer } from '../helpers/token-server';
import { echoTool, type RecordedRequest, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

const CLI = 'lib/cli/connectors.ts';
const SECRET_ENV = 'NOTES_CLIENT_SECRET';
const WRONG_SECRET = 'cc-wrong-secret-0d1e2f3a4b5c6d7e';
/** The token lifetime at the authorization server: a token is then used for 7 s (12 s less the 5 s margin). */
const LIFETIME_SECONDS = 12;
const USABLE_MS = 7_000;
const COMMANDS_TIMEOUT = 180_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };

function textOf(reply: McpReply): string {
  return ((reply.body?.result?.content ?? []) as { text?: string }[]).map((item) => item.text ?? '').join('\n');
}

function bearerOf(entry: RecordedRequest): string | undefined {
  return /^Bearer (.+)$/.exec(String(entry.headers.authorization ?? ''))?.[1];
}

/** The upstreams' tools: one that reads, one that writes. */
const notesTools = () => [echoTool('search', { annotations: { readOnlyHint: true } }), echoTool('write_note')];

/** The arguments that add a connector with Gatehouse's client at `server` (the secret from SECRET_ENV). */
function clientCredentialArgs(server: RunningTokenServer, client = GATEHOUSE_CLIENT.id): string[] {
  return ['--client-credentials', '--token-url', server.tokenUrl, '--client-id', client, '--client-secret-env', SECRET_ENV];
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('connectors with client credentials (PostgreSQL)', () => {
  let server: RunningServer;
  let sql: pg.Client;
  let as: RunningTokenServer;
  let notes: RunningUpstream;
  let audienced: RunningUpstream;
  let plain: RunningUpstream;
  let tokens: Tokens;
  /** What the notes upstream accepts: a token of Gatehouse's client with this scope (changed by one test). */
  const notesPolicy = { clientIds: [GATEHOUSE_CLIENT.id], scope: 'notes:read' };
  /** Every command's output and every in-band error text: none may carry the secret or a token. */
  const shown: string[] = [];

  const cli = async (args: string[], secret: string | null = GATEHOUSE_CLIENT.secret, input?: string): Promise<CliResult> => {
    const result = await runCli(CLI, args, { ...server.env, ...(secret === null ? {} : { [SECRET_ENV]: secret }) }, input);
    shown.push(result.stdout, result.stderr);
    return result;
  };
  const call = async (name: string, args: Record<string, unknown> = { text: 'hello' }) => {
    const reply = await postMcp(server.url, tokens.access_token, rpc('tools/call', { name, arguments: args }));
    shown.push(reply.text);
    return reply;
  };
  const expectOk = (reply: McpReply, args: Record<string, unknown> = { text: 'hello' }) => {
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body?.result?.isError, reply.text).toBe(false);
    expect(textOf(reply)).toBe(JSON.stringify(args));
  };
  const tokenRequestsOf = (client: string) => as.tokenRequests.filter((request) => request.client === client);
  const calls = (upstream: RunningUpstream, from: number) => upstream.log.slice(from).filter((entry) => entry.rpcMethods.includes('tools/call'));

  beforeAll(async () => {
    as = await startTokenServer();
    as.setLifetime(LIFETIME_SECONDS);
    notes = await startUpstream({ stateful: true, requireBearer: introspectingVerifier(as, notesPolicy), tools: notesTools() });
    // Its tokens are for it alone (RFC 8707): the authorization server issues them with its URL as the audience.
    audienced = await startUpstream({
      stateful: false,
      requireBearer: (token) => introspectingVerifier(as, { clientIds: [GATEHOUSE_POST_CLIENT.id], scope: 'notes:write', audience: audienced.url })(token),
      tools: notesTools(),
    });
    as.allowResource(audienced.url);
    plain = await startUpstream({ stateful: false, tools: notesTools() });
    server = await startServer({ database: 'postgres', env: { CONNECTOR_REFRESH_SECONDS: '86400' } });
    sql = new pg.Client({ connectionString: server.postgres!.url });
    await sql.connect();
    const client = await register(server.url, { client_name: 'Client credentials test', redirect_uris: ['https://cc-test.example/cb'] });
    ({ tokens } = await connect(server.url, client, MEMBER));
  }, 180_000);

  afterAll(async () => {
    await sql?.end().catch(() => {});
    await server?.stop();
    for (const upstream of [notes, audienced, plain]) await upstream?.stop();
    await as?.stop();
  });

  it(
    'refuses to add a connector whose token cannot be got, saying why, and stores nothing; takes the secret only from the environment or standard input',
    async () => {
      const heard = notes.log.length;
      const wrong = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--orgs', 'acme'], WRONG_SECRET);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toMatch(new RegExp(`could not get an access token from the authorization server at ${as.issuer}: it answered HTTP 401, invalid_client`));
      expect(wrong.stderr + wrong.stdout).not.toContain(WRONG_SECRET);
      expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).at(-1)?.status).toBe(401);
      // The upstream never heard of it: the token comes first.
      expect(notes.log.length).toBe(heard);

      const both = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--header', 'X-API-Key: k']);
      expect(both.stderr).toMatch(/either header lines \(--header\) or client credentials \(--client-credentials\), not both/);
      const unset = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as)], null);
      expect(unset.stderr).toMatch(new RegExp(`${SECRET_ENV} is not set`));
      const asArgument = await cli(['add', 'notes', notes.url, '--client-credentials', '--token-url', as.tokenUrl, '--client-id', GATEHOUSE_CLIENT.id, '--client-secret', 'x']);
      expect(asArgument.code).not.toBe(0);
      expect(asArgument.stderr).toMatch(/client-secret/);
      const stray = await cli(['add', 'notes', notes.url, '--token-url', as.tokenUrl]);
      expect(stray.stderr).toMatch(/--token-url go with --client-credentials/);
      const badScope = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--scope', 'notes:read  notes:write']);
      expect(badScope.stderr).toMatch(/RFC 6749 §3.3/);
      const badUrl = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as).map((arg) => (arg === as.tokenUrl ? `${as.tokenUrl}#x` : arg))]);
      expect(badUrl.stderr).toMatch(/token URL must not have a #fragment/);
      for (const result of [both, unset, stray, badScope, badUrl]) expect(result.code).not.toBe(0);

      expect((await sql.query(`SELECT count(*)::int AS n FROM connectors`)).rows[0].n).toBe(0);
      expect((await sql.query(`SELECT count(*)::int AS n FROM audit_events WHERE type LIKE 'connector.%'`)).rows[0].n).toBe(0);
    },
    COMMANDS_TIMEOUT,
  );

  it(
    'adds connectors once a token is got (client_secret_basic with a scope; client_secret_post with a resource from standard input); lists where the token comes from, never the secret',
    async () => {
      const before = as.tokenRequests.length;
      const added = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--scope', 'notes:read', '--orgs', 'acme']);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/Added connector notes with 2 tool\(s\)/);
      const postArgs = ['--client-credentials', '--token-url', as.tokenUrl, '--client-id', GATEHOUSE_POST_CLIENT.id, '--client-secret-stdin'];
      const withResource = await cli(
        ['add', 'aud', audienced.url, ...postArgs, '--client-auth', 'post', '--scope', 'notes:write', '--resource', audienced.url, '--orgs', 'acme'],
        null,
        `${GATEHOUSE_POST_CLIENT.secret}\n`,
      );
      expect(withResource.code, withResource.stderr).toBe(0);

      // What the authorization server was sent: HTTP Basic, or the secret in the form; the scope; the resource.
      const [basic, post] = as.tokenRequests.slice(before);
      expect(basic).toMatchObject({ client: GATEHOUSE_CLIENT.id, status: 200 });
      // Each part form-encoded first (RFC 6749 §2.3.1), so "-" is sent as %2D.
      const encoded = (text: string) => text.replaceAll('-', '%2D');
      expect(basic!.authorization).toBe(`Basic ${Buffer.from(`${encoded(GATEHOUSE_CLIENT.id)}:${encoded(GATEHOUSE_CLIENT.secret)}`).toString('base64')}`);
      expect(Object.fromEntries(basic!.body)).toEqual({ grant_type: 'client_credentials', scope: 'notes:read' });
      expect(post).toMatchObject({ client: GATEHOUSE_POST_CLIENT.id, authorization: undefined, status: 200 });
      expect(Object.fromEntries(post!.body)).toEqual({
        grant_type: 'client_credentials',
        client_id: GATEHOUSE_POST_CLIENT.id,
        client_secret: GATEHOUSE_POST_CLIENT.secret,
        scope: 'notes:write',
        resource: audienced.url,
      });

      const list = await cli(['list']);
      expect(list.stdout).toContain(`credential: client credentials: token URL ${as.tokenUrl}, client id ${GATEHOUSE_CLIENT.id}, client_secret_basic, scope "notes:read"`);
      expect(list.stdout).toContain(`client id ${GATEHOUSE_POST_CLIENT.id}, client_secret_post, scope "notes:write", resource ${audienced.url}`);

      // Stored sealed: the column is not the secret, nor does any column hold it.
      const { rows } = await sql.query(`SELECT * FROM connectors ORDER BY slug`);
      expect(rows.map((row) => [row.slug, row.token_client_auth, row.credential_sealed])).toEqual([
        ['aud', 'client_secret_post', null],
        ['notes', 'client_secret_basic', null],
      ]);
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(GATEHOUSE_CLIENT.secret);
      expect(stored).not.toContain(GATEHOUSE_POST_CLIENT.secret);
      expect(rows[1].token_client_secret_sealed).toMatch(/\S{40,}/);

      const { rows: events } = await sql.query(`SELECT data FROM audit_events WHERE type = 'connector.added' AND data->>'slug' = 'notes'`);
      expect(events[0].data).toMatchObject({
        credential: 'client_credentials',
        clientCredentials: { tokenUrl: as.tokenUrl, clientId: GATEHOUSE_CLIENT.id, clientAuth: 'client_secret_basic', scope: 'notes:read', resource: null },
      });
    },
    COMMANDS_TIMEOUT,
  );

  it('sends a valid token with every call, beside the identity assertion; one token request serves many concurrent calls', async () => {
    const before = tokenRequestsOf(GATEHOUSE_CLIENT.id).length;
    const heard = notes.log.length;
    const replies = await Promise.all(Array.from({ length: 8 }, (_, index) => call('notes__search', { text: `n${index}` })));
    for (const [index, reply] of replies.entries()) expectOk(reply, { text: `n${index}` });
    // One token for this server process, got once (the command line got its own before).
    expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - before).toBe(1);
    const sent = notes.log.slice(heard);
    expect(sent.every((entry) => !entry.refused)).toBe(true);
    const bearers = new Set(sent.map(bearerOf));
    expect(bearers.size).toBe(1);
    const [token] = [...bearers];
    expect(token).toBe(as.issued.at(-1));
    expect(await as.introspect(token!)).toMatchObject({ active: true, client_id: GATEHOUSE_CLIENT.id, scope: 'notes:read' });
    for (const entry of calls(notes, heard)) {
      expect(entry.headers['gatehouse-identity']).toEqual(expect.any(String));
      // Never the caller's own token.
      expect(JSON.stringify(entry.headers)).not.toContain(tokens.access_token);
    }

    // The audience-bound one: a token for that upstream only, got with client_secret_post.
    expectOk(await call('aud__write_note'));
    const audienceToken = bearerOf(audienced.log.at(-1)!);
    expect(await as.introspect(audienceToken!)).toMatchObject({ active: true, aud: audienced.url, client_id: GATEHOUSE_POST_CLIENT.id });
  });

  it('reuses the token until shortly before it expires, then gets one new token for the calls made meanwhile', async () => {
    const got = tokenRequestsOf(GATEHOUSE_CLIENT.id).at(-1)!;
    const heard = notes.log.length;
    expectOk(await call('notes__search'));
    expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).at(-1)).toBe(got);
    // Past its lifetime less the margin (12 s less 5 s), still valid at the authorization server for 5 s more.
    await sleep(Math.max(0, got.at + USABLE_MS + 300 - Date.now()));
    // A slow token endpoint: every call arrives while the one token request is still under way.
    as.setDelay(1_000);
    let replies: McpReply[];
    try {
      replies = await Promise.all(Array.from({ length: 6 }, () => call('notes__search')));
    } finally {
      as.setDelay(0);
    }
    for (const reply of replies) expectOk(reply);
    const fresh = tokenRequestsOf(GATEHOUSE_CLIENT.id).filter((request) => request.at > got.at);
    expect(fresh).toHaveLength(1);
    const used = calls(notes, heard).map(bearerOf);
    expect(new Set(used).size).toBe(2);
    expect(used.at(-1)).toBe(as.issued.at(-1));
    expect(notes.log.slice(heard).some((entry) => entry.refused)).toBe(false);
  }, 30_000);

  it('answers a revoked token by getting a new one and sending the call once more, with a new identity assertion', async () => {
    expectOk(await call('notes__search'));
    const current = bearerOf(notes.log.at(-1)!)!;
    await as.revoke(current);
    expect((await as.introspect(current)).active).toBe(false);
    const before = tokenRequestsOf(GATEHOUSE_CLIENT.id).length;
    const heard = notes.log.length;

    expectOk(await call('notes__search', { text: 'after revocation' }), { text: 'after revocation' });
    const [refused, resent, ...more] = calls(notes, heard);
    expect(more).toEqual([]);
    expect([refused!.refused, bearerOf(refused!)]).toEqual([true, current]);
    expect(resent!.refused).toBe(false);
    expect(bearerOf(resent!)).not.toBe(current);
    expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - before).toBe(1);
    const jti = (entry: RecordedRequest) => decodeJwt(String(entry.headers['gatehouse-identity'])).jti;
    expect(jti(resent!)).not.toBe(jti(refused!));
  });

  it('uses a token given without expires_in for the default lifetime, and answers its expiry at the server the same way', async () => {
    // Tokens that live 3 s at the server, but say nothing of it: Gatehouse would keep them 5 minutes.
    as.setLifetime(3, { sendExpiresIn: false });
    try {
      const before = tokenRequestsOf(GATEHOUSE_CLIENT.id).length;
      const current = bearerOf(notes.log.at(-1)!)!;
      await as.revoke(current);
      expectOk(await call('notes__search'));
      expectOk(await call('notes__search'));
      expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - before).toBe(1);
      await sleep(3_500);
      const heard = notes.log.length;
      expectOk(await call('notes__search'));
      expect(calls(notes, heard).map((entry) => entry.refused)).toEqual([true, false]);
      expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - before).toBe(2);
    } finally {
      as.setLifetime(LIFETIME_SECONDS);
    }
    // A token of the normal lifetime again, for the tests that follow.
    await as.revoke(bearerOf(notes.log.at(-1)!)!);
    expectOk(await call('notes__search'));
  }, 30_000);

  it('gives up after one resend when the upstream keeps refusing, in band, and logs an upstream error', async () => {
    expectOk(await call('notes__search'));
    const before = tokenRequestsOf(GATEHOUSE_CLIENT.id).length;
    const heard = notes.log.length;
    // The upstream now wants a scope Gatehouse's connector does not ask for.
    notesPolicy.scope = 'notes:admin';
    let reply: McpReply;
    try {
      reply = await call('notes__search');
    } finally {
      notesPolicy.scope = 'notes:read';
    }
    expect(reply.status).toBe(200);
    expect(reply.body?.result?.isError).toBe(true);
    expect(textOf(reply)).toMatch(/could not run: .*refused Gatehouse's credential \(HTTP 401\)/);
    expect(calls(notes, heard).map((entry) => entry.refused)).toEqual([true, true]);
    expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - before).toBe(1);
    expectOk(await call('notes__search'));

    const deadline = Date.now() + 10_000;
    let outcomes: string[] = [];
    while (Date.now() < deadline) {
      outcomes = (await sql.query(`SELECT outcome FROM mcp_calls WHERE connector = 'notes' ORDER BY id`)).rows.map((row) => row.outcome);
      if (outcomes.at(-1) === 'ok' && outcomes.includes('upstream_error')) break;
      await sleep(300);
    }
    expect(outcomes.filter((outcome) => outcome === 'upstream_error')).toHaveLength(1);
  }, 30_000);

  it(
    'replaces the secret only once a token is got with it, and the next call gets a token of the new configuration; replaces header lines; switches a connector to client credentials',
    async () => {
      const sealedNow = async (slug: string) => (await sql.query(`SELECT token_client_secret_sealed, credential_sealed FROM connectors WHERE slug = $1`, [slug])).rows[0];
      const before = await sealedNow('notes');
      const wrong = await cli(['credential', 'notes', '--client-secret-env', SECRET_ENV], WRONG_SECRET);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toMatch(/invalid_client/);
      expect(await sealedNow('notes')).toEqual(before);

      const replaced = await cli(['credential', 'notes', '--client-secret-stdin'], null, GATEHOUSE_CLIENT.secret);
      expect(replaced.code, replaced.stderr).toBe(0);
      expect(replaced.stdout).toMatch(/Replaced the credential of notes \(client credentials\)/);
      expect((await sealedNow('notes')).token_client_secret_sealed).not.toBe(before.token_client_secret_sealed);
      const requests = tokenRequestsOf(GATEHOUSE_CLIENT.id).length;
      expectOk(await call('notes__search'));
      expect(tokenRequestsOf(GATEHOUSE_CLIENT.id).length - requests).toBe(1);

      const added = await cli(['add', 'plain', plain.url, '--header', 'X-API-Key: first-key-123', '--orgs', 'acme']);
      expect(added.code, added.stderr).toBe(0);
      const noSecret = await cli(['credential', 'plain', '--client-secret-env', SECRET_ENV]);
      expect(noSecret.stderr).toMatch(/"plain" has no client credentials/);
      const headers = await cli(['credential', 'plain', '--header', 'X-API-Key: second-key-456']);
      expect(headers.code, headers.stderr).toBe(0);
      expectOk(await call('plain__search'));
      expect(plain.log.at(-1)!.headers['x-api-key']).toBe('second-key-456');

      const switched = await cli(['credential', 'plain', ...clientCredentialArgs(as), '--scope', 'notes:read']);
      expect(switched.code, switched.stderr).toBe(0);
      expectOk(await call('plain__search'));
      expect(plain.log.at(-1)!.headers['x-api-key']).toBeUndefined();
      expect(await as.introspect(bearerOf(plain.log.at(-1)!)!)).toMatchObject({ active: true, client_id: GATEHOUSE_CLIENT.id });
      expect((await sealedNow('plain')).credential_sealed).toBeNull();

      const { rows } = await sql.query(`SELECT data FROM audit_events WHERE type = 'connector.credential_replaced' ORDER BY id`);
      expect(rows.map((row) => row.data)).toEqual([
        expect.objectContaining({ slug: 'notes', credential: 'client_credentials', via: 'cli' }),
        expect.objectContaining({ slug: 'plain', credential: 'headers', headers: ['X-API-Key'] }),
        expect.objectContaining({ slug: 'plain', credential: 'client_credentials', clientCredentials: expect.objectContaining({ clientId: GATEHOUSE_CLIENT.id }) }),
      ]);
    },
    COMMANDS_TIMEOUT,
  );

  it('never shows the secret or a token: not in audit events, command output, the call log, the server log or an error', async () => {
    const { rows: audit } = await sql.query(`SELECT type, data FROM audit_events`);
    const { rows: callLog } = await sql.query(`SELECT * FROM mcp_calls`);
    const { rows: connectors } = await sql.query(`SELECT last_refresh_error, problems FROM connectors`);
    const everything = [JSON.stringify(audit), JSON.stringify(callLog), JSON.stringify(connectors), server.output(), ...shown].join('\n');
    expect(as.issued.length).toBeGreaterThan(5);
    for (const secret of [GATEHOUSE_CLIENT.secret, GATEHOUSE_POST_CLIENT.secret, WRONG_SECRET]) expect(everything).not.toContain(secret);
    for (const token of as.issued) expect(everything).not.toContain(token);
    // The secrets do reach the authorization server, and nothing else: no upstream ever saw one.
    for (const upstream of [notes, audienced, plain]) {
      const heard = JSON.stringify(upstream.log);
      for (const secret of [GATEHOUSE_CLIENT.secret, GATEHOUSE_POST_CLIENT.secret]) expect(heard).not.toContain(secret);
    }
  });
});

// The embedded database: the command line runs while the server is stopped; secret:rotate re-seals the
// client secret with the rest, and the connector keeps working with the new AUTH_SECRET.
describe('connectors with client credentials (embedded database)', () => {
  let server: RunningServer;
  let as: RunningTokenServer;
  let notes: RunningUpstream;
  const cli = (args: string[], secret = GATEHOUSE_CLIENT.secret, extra: Record<string, string> = {}) => runCli(CLI, args, { ...server.env, [SECRET_ENV]: secret, ...extra });

  beforeAll(async () => {
    as = await startTokenServer();
    as.setLifetime(LIFETIME_SECONDS);
    notes = await startUpstream({ stateful: false, requireBearer: introspectingVerifier(as, { clientIds: [GATEHOUSE_CLIENT.id], scope: 'notes:read' }), tools: notesTools() });
    server = await startServer({ database: 'embedded', env: { CONNECTOR_REFRESH_SECONDS: '86400' } });
    await server.halt();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await notes?.stop();
    await as?.stop();
  });

  async function searchAs(tokens: Tokens, text: string): Promise<McpReply> {
    return postMcp(server.url, tokens.access_token, rpc('tools/call', { name: 'notes__search', arguments: { text } }));
  }

  it(
    'adds only with a token, forwards with one shared by concurrent calls, and keeps working after secret:rotate',
    async () => {
      const wrong = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--orgs', 'acme'], WRONG_SECRET);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toMatch(/invalid_client/);
      const added = await cli(['add', 'notes', notes.url, ...clientCredentialArgs(as), '--scope', 'notes:read', '--orgs', 'acme']);
      expect(added.code, added.stderr).toBe(0);

      server = await startServer(server.restartOptions);
      const client = await register(server.url, { client_name: 'Embedded client credentials', redirect_uris: ['https://cc-embedded.example/cb'] });
      const { tokens } = await connect(server.url, client, MEMBER);
      const before = as.tokenRequests.length;
      const replies = await Promise.all(Array.from({ length: 6 }, (_, index) => searchAs(tokens, `e${index}`)));
      for (const [index, reply] of replies.entries()) expect(textOf(reply), reply.text).toBe(JSON.stringify({ text: `e${index}` }));
      expect(as.tokenRequests.length - before).toBe(1);
      expect(notes.log.every((entry) => bearerOf(entry) !== undefined && !entry.refused)).toBe(true);

      await server.halt();
      const sealedBefore = await readSealedSecret(server);
      const rotated = await runCli('lib/cli/rotate-secret.ts', [], { ...server.env, NEW_AUTH_SECRET: 'a-brand-new-auth-secret-for-the-embedded-test-0123' });
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(await readSealedSecret(server)).not.toBe(sealedBefore);
      server = await startServer(server.restartOptions);
      // Signing in uses the secret too: connect again.
      const { tokens: again } = await connect(server.url, await register(server.url, { client_name: 'After rotation', redirect_uris: ['https://cc-rotated.example/cb'] }), MEMBER);
      const heard = notes.log.length;
      const reply = await searchAs(again, 'after rotation');
      expect(textOf(reply), reply.text).toBe(JSON.stringify({ text: 'after rotation' }));
      expect(await as.introspect(bearerOf(notes.log.at(-1)!)!)).toMatchObject({ active: true });
      expect(notes.log.slice(heard).some((entry) => entry.refused)).toBe(false);

      const output = server.output() + wrong.stderr + added.stdout + rotated.stdout;
      expect(output).not.toContain(GATEHOUSE_CLIENT.secret);
      for (const token of as.issued) expect(output).not.toContain(token);
      expect(readFileSync(join(server.dataDir, 'auth-secret'), 'utf8').trim()).toBe('a-brand-new-auth-secret-for-the-embedded-test-0123');
    },
    COMMANDS_TIMEOUT,
  );
});

/** The sealed client secret as stored, read from the stopped embedded server's folder. */
async function readSealedSecret(server: RunningServer): Promise<string> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = new PGlite(join(server.dataDir, 'pgdata'));
  try {
    return (await pglite.query<{ sealed: string }>(`SELECT token_client_secret_sealed AS sealed FROM connectors WHERE slug = 'notes'`)).rows[0]!.sealed;
  } finally {
    await pglite.close();
  }
}
