// A revocation racing with refreshes and /mcp calls (issue: reliability). While one client keeps rotating
// its refresh token and calling /mcp as fast as it can, the grant is revoked — by the person in Connected
// Apps, or by the client itself at /oauth/revoke. Once the revocation has committed, nothing is issued or
// accepted for that grant: no /mcp call started after it answers 200, no refresh started after it returns
// tokens, every token the client ever held is dead (401 at /mcp, invalid_grant at /oauth/token), and the
// database keeps no token row for the grant. A third grant, left alone, works throughout: the race is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DATABASES } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, tokenRequest, type RegisteredClient, type Tokens } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const REVOKE_ACTION = { file: 'app/settings/connected-apps/actions.ts', name: 'revokeConnectedApp' };
const ROUNDS = 3;
/** Per grant: how many /mcp callers run beside the one refresh chain. */
const CALLERS = 4;

type Attempt = { kind: 'mcp' | 'refresh'; startedAt: number; status: number; tokens?: Tokens };

/** One connected client: its refresh chain, its callers, and everything it was ever given. */
class Connection {
  current: Tokens;
  readonly accessTokens: string[] = [];
  readonly refreshTokens: string[] = [];
  readonly attempts: Attempt[] = [];
  private running = true;

  constructor(
    readonly server: RunningServer,
    readonly client: RegisteredClient,
    readonly grantId: string,
    tokens: Tokens,
  ) {
    this.current = tokens;
    this.remember(tokens);
  }

  remember(tokens: Tokens): void {
    this.accessTokens.push(tokens.access_token);
    this.refreshTokens.push(tokens.refresh_token);
  }

  refresh(refreshToken: string) {
    return tokenRequest(this.server.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.client.client_id });
  }

  call(accessToken: string) {
    return postMcp(this.server.url, accessToken, rpc('tools/call', { name: 'whoami', arguments: {} }));
  }

  /** The refresh chain and the callers, until stop(). */
  run(): Promise<unknown> {
    const chain = async () => {
      while (this.running) {
        const startedAt = Date.now();
        const { response, body } = await this.refresh(this.current.refresh_token);
        const attempt: Attempt = { kind: 'refresh', startedAt, status: response.status };
        if (response.status === 200) {
          attempt.tokens = body as unknown as Tokens;
          this.current = attempt.tokens;
          this.remember(attempt.tokens);
        }
        this.attempts.push(attempt);
        if (response.status !== 200) await pause(5);
      }
    };
    const caller = async () => {
      while (this.running) {
        const startedAt = Date.now();
        const reply = await this.call(this.current.access_token);
        this.attempts.push({ kind: 'mcp', startedAt, status: reply.status });
      }
    };
    return Promise.all([chain(), ...Array.from({ length: CALLERS }, caller)]);
  }

  stop(): void {
    this.running = false;
  }
}

describe.runIf(DATABASES.includes('postgres'))('a revocation racing with refreshes and calls', () => {
  let server: RunningServer;
  let sql: pg.Client;
  let memberJar: CookieJar;

  beforeAll(async () => {
    server = await startServer({ database: 'postgres', env: { MCP_RATE_LIMIT_PER_MINUTE: '1000000', MCP_UNAUTHENTICATED_RATE_LIMIT: '1000000', REGISTRATION_RATE_LIMIT: '1000' } });
    sql = new pg.Client({ connectionString: server.postgres!.url });
    await sql.connect();
    memberJar = (await signIn(server.url, member.email, member.password)).jar;
  });
  afterAll(async () => {
    await sql?.end();
    await server?.stop();
  });

  async function connectClient(name: string): Promise<Connection> {
    const client = await register(server.url, { client_name: name, redirect_uris: ['https://race.example/cb'] });
    const { tokens } = await connect(server.url, client, member);
    const { rows } = await sql.query<{ id: string }>('SELECT id FROM grants WHERE client_id = $1 AND revoked_at IS NULL', [client.client_id]);
    expect(rows).toHaveLength(1);
    return new Connection(server, client, rows[0]!.id, tokens);
  }

  /** When the revocation was certainly committed: the first moment the test saw it, from the database or the answer. */
  async function revokeAndWatch(connection: Connection, revoke: () => Promise<void>): Promise<number> {
    let seenAt = Number.POSITIVE_INFINITY;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const { rows } = await sql.query('SELECT 1 FROM grants WHERE id = $1 AND revoked_at IS NOT NULL', [connection.grantId]);
        if (rows.length) {
          seenAt = Math.min(seenAt, Date.now());
          return;
        }
      }
    })();
    await revoke();
    seenAt = Math.min(seenAt, Date.now());
    watching = false;
    await watch;
    return seenAt;
  }

  async function expectNothingAcceptedAfter(connection: Connection, committedAt: number, how: string): Promise<void> {
    const late = connection.attempts.filter((attempt) => attempt.startedAt > committedAt);
    expect(late.length, `${how}: requests kept running after the revocation`).toBeGreaterThan(0);
    const accepted = late.filter((attempt) => attempt.status === 200);
    expect(accepted, `${how}: answered 200 though started after the revocation committed`).toEqual([]);

    // Every token the client ever held — including any issued by a refresh that raced the revocation — is dead.
    for (const accessToken of new Set(connection.accessTokens)) {
      expect((await connection.call(accessToken)).status, `${how}: an access token still works`).toBe(401);
    }
    for (const refreshToken of new Set(connection.refreshTokens)) {
      const { response, body } = await connection.refresh(refreshToken);
      expect([response.status, body.error], `${how}: a refresh token still works`).toEqual([400, 'invalid_grant']);
    }
    const { rows } = await sql.query<{ model: string }>('SELECT model FROM oidc_models WHERE grant_id = $1 OR (model = $2 AND id = $3)', [connection.grantId, 'Grant', connection.grantId]);
    expect(
      rows.map((row) => row.model),
      `${how}: rows left for the revoked grant`,
    ).toEqual([]);
  }

  it('lets nothing be issued or accepted once the revocation commits, and leaves no live token', async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const byPerson = await connectClient(`Race ${round} person`);
      const byClient = await connectClient(`Race ${round} client`);
      const untouched = await connectClient(`Race ${round} untouched`);
      const connections = [byPerson, byClient, untouched];
      const running = connections.map((connection) => connection.run());
      // Revoke at a random moment once every connection has refreshed and called at least once.
      const ready = (connection: Connection) => ['refresh', 'mcp'].every((kind) => connection.attempts.some((attempt) => attempt.kind === kind && attempt.status === 200));
      for (let waited = 0; !connections.every(ready) && waited < 20_000; waited += 20) await pause(20);
      await pause(200 * Math.random());

      const [personCommit, clientCommit] = await Promise.all([
        revokeAndWatch(byPerson, async () => {
          const call = await callServerAction(server.url, memberJar, REVOKE_ACTION, [byPerson.grantId], '/settings/connected-apps');
          expect([call.status, call.result], call.body.slice(0, 300)).toEqual([200, { ok: true }]);
        }),
        revokeAndWatch(byClient, async () => {
          const response = await fetch(`${server.url}/oauth/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ token: byClient.accessTokens[0]!, client_id: byClient.client.client_id }).toString(),
          });
          expect(response.status, await response.text()).toBe(200);
        }),
      ]);
      // Let both run on well past the revocations, then stop everything.
      await pause(400);
      for (const connection of connections) connection.stop();
      await Promise.all(running);

      await expectNothingAcceptedAfter(byPerson, personCommit, `round ${round}, revoked in Connected Apps`);
      await expectNothingAcceptedAfter(byClient, clientCommit, `round ${round}, revoked at /oauth/revoke`);

      // The race was real: the untouched grant was refreshed and called all along, and still works.
      const refreshed = untouched.attempts.filter((attempt) => attempt.kind === 'refresh' && attempt.status === 200);
      const called = untouched.attempts.filter((attempt) => attempt.kind === 'mcp' && attempt.status === 200);
      expect(refreshed.length, `round ${round}: the untouched grant's refreshes`).toBeGreaterThan(0);
      expect(called.length, `round ${round}: the untouched grant's calls`).toBeGreaterThan(0);
      expect(
        untouched.attempts.filter((attempt) => attempt.status !== 200),
        `round ${round}: the untouched grant failed`,
      ).toEqual([]);
      expect((await untouched.call(untouched.current.access_token)).status).toBe(200);
      // The revoked grants did run before their revocation.
      for (const connection of [byPerson, byClient]) {
        expect(connection.attempts.some((attempt) => attempt.kind === 'refresh' && attempt.status === 200)).toBe(true);
      }
      // Each revocation is recorded once.
      const { rows } = await sql.query<{ grant_id: string; n: number }>("SELECT grant_id, count(*)::int AS n FROM audit_events WHERE type = 'grant.revoked' AND grant_id = ANY($1) GROUP BY grant_id", [
        [byPerson.grantId, byClient.grantId, untouched.grantId],
      ]);
      expect(Object.fromEntries(rows.map((row) => [row.grant_id, row.n]))).toEqual({ [byPerson.grantId]: 1, [byClient.grantId]: 1 });
    }
    expect(server.output()).not.toMatch(/uncaught|unhandled|deadlock/i);
  }, 180_000);
});

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
