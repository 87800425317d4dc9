// The instance admin's console (/admin/instance): every client of the installation (disable, enable,
// delete), organizations and people (create an org, disable a person), and key rotation without a
// restart. Only instance admins may use it: every page and server action is also called by the people
// who must be refused — signed out, an org owner, a member, a viewer — with real ids, and the database
// is compared before and after to prove nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, pkce, register, tokenRequest, type Tokens } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { type CookieJar, signIn } from '../helpers/session';

const person = (email: string) => ({ email, password: TEST_DEMO_PASSWORD });
const OWNER = person('owner@acme.test'); // Olivia: owner of Acme and instance admin
const MEMBER = person('member@acme.test');
const VIEWER = person('viewer@acme.test');
const GLOBEX_OWNER = { email: 'grace@globex.test', name: 'Grace Globex', role: 'owner' as const, password: TEST_DEMO_PASSWORD };

const ACTIONS = {
  disableClient: { file: 'app/admin/instance/actions.ts', name: 'disableClientAction' },
  enableClient: { file: 'app/admin/instance/actions.ts', name: 'enableClientAction' },
  deleteClient: { file: 'app/admin/instance/actions.ts', name: 'deleteClientAction' },
  createOrganization: { file: 'app/admin/instance/organizations/actions.ts', name: 'createOrganizationAction' },
  disablePerson: { file: 'app/admin/instance/people/actions.ts', name: 'disablePersonAction' },
  enablePerson: { file: 'app/admin/instance/people/actions.ts', name: 'enablePersonAction' },
  rotateKeys: { file: 'app/admin/instance/keys/actions.ts', name: 'rotateKeysAction' },
} as const;

const PAGES = ['/admin/instance', '/admin/instance/organizations', '/admin/instance/people', '/admin/instance/keys'];

type Outcome = { ok: true; value: any } | { ok: false; error: string };

async function act(server: RunningServer, jar: CookieJar | null, action: keyof typeof ACTIONS, input: unknown): Promise<Outcome> {
  const call = await callServerAction(server.url, jar, ACTIONS[action], [input]);
  expect(call.status, call.body).toBe(200);
  return call.result as Outcome;
}

async function session(server: RunningServer, who: { email: string; password: string }): Promise<CookieJar> {
  const { jar, response } = await signIn(server.url, who.email, who.password);
  expect(response.status).toBe(200);
  return jar;
}

function ping(server: RunningServer, tokens: Tokens) {
  return postMcp(server.url, tokens.access_token, rpc('ping'));
}

function refresh(server: RunningServer, clientId: string, refreshToken: string) {
  return tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
}

async function jwksKids(server: RunningServer): Promise<string[]> {
  const { keys } = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
  return keys.map((key) => key.kid);
}

/** What an instance action could change, for "nothing changed" comparisons. */
async function snapshot(query: Query): Promise<string> {
  const tables = [
    `SELECT client_id, disabled_at, disabled_by_id FROM clients ORDER BY client_id`,
    `SELECT model, id FROM oidc_models WHERE model IN ('Client', 'RegistrationAccessToken', 'Grant', 'AccessToken', 'RefreshToken') ORDER BY model, id`,
    `SELECT id, disabled_at, is_instance_admin FROM people ORDER BY id`,
    `SELECT id, slug, name FROM organizations ORDER BY id`,
    `SELECT id, person_id, org_id, role, status FROM memberships ORDER BY id`,
    `SELECT id, revoked_at FROM grants ORDER BY id`,
    `SELECT id, retired_at FROM key_material ORDER BY id`,
    `SELECT id, ended_at FROM sign_in_sessions ORDER BY id`,
    `SELECT count(*)::int AS events FROM audit_events`,
  ];
  const rows = [];
  for (const sql of tables) rows.push(await query(sql));
  return JSON.stringify(rows);
}

describe.each(DATABASES)('instance console authorization on the %s database', (kind) => {
  let server: RunningServer;
  const jars: Record<string, CookieJar | null> = { 'signed out': null };
  let before: string;
  let ids: { clientId: string; memberId: string; ownerId: string };

  beforeAll(async () => {
    server = await startServer({ database: kind });
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [GLOBEX_OWNER]);
    const client = await register(server.url, { client_name: 'Target App', redirect_uris: ['https://target.example/cb'] });
    await connect(server.url, client, MEMBER);
    jars['an owner of another org'] = await session(server, GLOBEX_OWNER);
    jars['a member'] = await session(server, MEMBER);
    jars['a viewer'] = await session(server, VIEWER);
    const inspected = await inspectDatabase(server, async (query) => {
      const [member] = await query<{ id: string }>(`SELECT id FROM people WHERE email = $1`, [MEMBER.email]);
      const [owner] = await query<{ id: string }>(`SELECT id FROM people WHERE email = $1`, [OWNER.email]);
      return { ids: { clientId: client.client_id, memberId: member!.id, ownerId: owner!.id }, state: await snapshot(query) };
    });
    server = inspected.server;
    ids = inspected.result.ids;
    before = inspected.result.state;
  }, 120_000);
  afterAll(async () => server?.stop());

  const callers = ['signed out', 'an owner of another org', 'a member', 'a viewer'];

  it.each(callers)('refuses every instance action to %s, whatever the arguments', async (caller) => {
    const jar = jars[caller]!;
    const inputs: [keyof typeof ACTIONS, unknown][] = [
      ['disableClient', { clientId: ids.clientId }],
      ['enableClient', { clientId: ids.clientId }],
      ['deleteClient', { clientId: ids.clientId }],
      ['createOrganization', { name: 'Hijacked', slug: 'hijacked', ownerEmail: GLOBEX_OWNER.email }],
      ['disablePerson', { personId: ids.ownerId }],
      ['enablePerson', { personId: ids.memberId }],
      ['rotateKeys', {}],
    ];
    for (const [action, input] of inputs) {
      const outcome = await act(server, jar, action, input);
      expect(outcome, `${action} by ${caller}`).toEqual({
        ok: false,
        error: jar ? 'Only instance admins can do this.' : 'Your session has ended: sign in again.',
      });
    }
  });

  it.each(callers)('answers every instance page with 404 to %s (a signed-out person is sent to sign in)', async (caller) => {
    const jar = jars[caller];
    for (const page of PAGES) {
      const response = jar ? await jar.fetch(`${server.url}${page}`) : await fetch(`${server.url}${page}`, { redirect: 'manual' });
      if (jar) {
        expect(response.status, page).toBe(404);
      } else {
        expect(response.status, page).toBe(307);
        expect(response.headers.get('location')).toBe(`/login?callbackUrl=${encodeURIComponent(page)}`);
      }
    }
  });

  it('changed nothing in the database through any refused call', async () => {
    const { result, server: next } = await inspectDatabase(server, snapshot);
    server = next;
    expect(result).toBe(before);
  });

  it('opens every page to the instance admin', async () => {
    const jar = await session(server, OWNER);
    const expected: Record<string, RegExp> = {
      '/admin/instance': /Target App.*Acme/s,
      '/admin/instance/organizations': /Acme.*Globex.*Initech/s,
      '/admin/instance/people': /Grace Globex.*grace@globex\.test.*Globex.*owner/s,
      '/admin/instance/keys': /initial-rs256/,
    };
    for (const page of PAGES) {
      const response = await jar.fetch(`${server.url}${page}`);
      expect(response.status, page).toBe(200);
      expect(await response.text(), page).toMatch(expected[page]!);
    }
  });
});

describe.each(DATABASES)('instance admin changes on the %s database', (kind) => {
  let server: RunningServer;
  let admin: CookieJar;

  beforeAll(async () => {
    server = await startServer({ database: kind });
    admin = await session(server, OWNER);
  }, 60_000);
  afterAll(async () => server?.stop());

  async function inspect<T>(work: (query: Query) => Promise<T>): Promise<T> {
    const { result, server: next } = await inspectDatabase(server, work);
    server = next;
    return result;
  }

  it('disables a client everywhere — /mcp 401, refresh and authorize refused, no replay — and enables it again', async () => {
    const client = await register(server.url, { client_name: 'Switchable', redirect_uris: ['https://switch.example/cb'] });
    const { tokens } = await connect(server.url, client, MEMBER);
    // A refresh just before the disable: its token is inside the 10 s replay window when presented again.
    const refreshed = await refresh(server, client.client_id, tokens.refresh_token);
    expect(refreshed.response.status).toBe(200);
    const current = refreshed.body as unknown as Tokens;

    expect(await act(server, admin, 'disableClient', { clientId: client.client_id })).toMatchObject({ ok: true });
    const refused = await ping(server, current);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    for (const token of [tokens.refresh_token, current.refresh_token]) {
      const again = await refresh(server, client.client_id, token);
      expect(again.response.status).toBe(401);
      expect(again.body.error).toBe('invalid_client');
    }
    const browser = new Browser(server.url);
    await browser.signIn(MEMBER.email, MEMBER.password);
    const { response } = await browser.follow(authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid_client/);

    expect(await act(server, admin, 'enableClient', { clientId: client.client_id })).toMatchObject({ ok: true });
    expect((await ping(server, current)).status).toBe(200);
    const renewed = await refresh(server, client.client_id, current.refresh_token);
    expect(renewed.response.status).toBe(200);

    const events = await inspect((query) =>
      query<{ type: string; actor: string; client_id: string }>(
        `SELECT e.type, p.email AS actor, e.client_id FROM audit_events e JOIN people p ON p.id = e.actor_person_id
         WHERE e.type IN ('client.disabled', 'client.enabled', 'refresh.reuse_detected') ORDER BY e.id`,
      ),
    );
    expect(events).toEqual([
      { type: 'client.disabled', actor: OWNER.email, client_id: client.client_id },
      { type: 'client.enabled', actor: OWNER.email, client_id: client.client_id },
    ]);
  });

  it('deletes a client: its tokens fail, its registration is gone, every grant revoked and audited', async () => {
    const client = await register(server.url, { client_name: 'Doomed', redirect_uris: ['https://doomed.example/cb'] });
    const first = await connect(server.url, client, MEMBER);
    const second = await connect(server.url, client, OWNER);
    expect((await ping(server, first.tokens)).status).toBe(200);

    expect(await act(server, admin, 'deleteClient', { clientId: client.client_id })).toEqual({ ok: true, value: 2 });
    for (const { tokens } of [first, second]) {
      const reply = await ping(server, tokens);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const registration = await fetch(client.registration_client_uri, { headers: { authorization: `Bearer ${client.registration_access_token}` } });
    expect(registration.status).toBe(401);
    const refreshAttempt = await refresh(server, client.client_id, first.tokens.refresh_token);
    expect(refreshAttempt.body.error).toBe('invalid_client');
    expect(await act(server, admin, 'deleteClient', { clientId: client.client_id })).toEqual({
      ok: false,
      error: 'This client does not exist (it may have been deleted).',
    });

    const found = await inspect(async (query) => ({
      rows: await query<{ n: number }>(
        `SELECT (SELECT count(*) FROM clients WHERE client_id = $1)::int
              + (SELECT count(*) FROM oidc_models WHERE (model = 'Client' AND id = $1) OR payload->>'clientId' = $1)::int
              + (SELECT count(*) FROM grants WHERE client_id = $1)::int AS n`,
        [client.client_id],
      ),
      events: await query<{ type: string; actor: string | null; reason: string | null; by: string | null }>(
        `SELECT e.type, p.email AS actor, e.data->>'reason' AS reason, e.data->>'by' AS by
         FROM audit_events e LEFT JOIN people p ON p.id = e.actor_person_id
         WHERE e.client_id = $1 AND e.type IN ('grant.revoked', 'client.deleted') ORDER BY e.id`,
        [client.client_id],
      ),
    }));
    expect(found.rows[0]!.n).toBe(0);
    expect(found.events).toEqual([
      { type: 'grant.revoked', actor: OWNER.email, reason: 'client_deleted', by: null },
      { type: 'grant.revoked', actor: OWNER.email, reason: 'client_deleted', by: null },
      { type: 'client.deleted', actor: OWNER.email, reason: null, by: 'instance_admin' },
    ]);
  });

  it('disables a person: their apps get 401, their browser session ends; never oneself', async () => {
    const client = await register(server.url, { client_name: 'Viewer App', redirect_uris: ['https://viewer.example/cb'] });
    const { tokens } = await connect(server.url, client, VIEWER);
    const browser = await session(server, VIEWER);
    expect((await browser.fetch(`${server.url}/settings/account`)).status).toBe(200);
    const [viewerId, ownerId] = await inspect(async (query) =>
      (await query<{ id: string }>(`SELECT id FROM people WHERE email = ANY($1) ORDER BY email DESC`, [[VIEWER.email, OWNER.email]])).map((row) => row.id),
    );
    admin = await session(server, OWNER); // the inspection restarted the embedded server; sessions live on, but sign in anyway

    const disabled = await act(server, admin, 'disablePerson', { personId: viewerId });
    expect(disabled).toEqual({ ok: true, value: { sessionsEnded: expect.any(Number) } });
    expect((disabled as { value: { sessionsEnded: number } }).value.sessionsEnded).toBeGreaterThanOrEqual(1);
    const reply = await ping(server, tokens);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const page = await browser.fetch(`${server.url}/settings/account`);
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toMatch(/^\/login/);
    expect((await signIn(server.url, VIEWER.email, VIEWER.password)).response.status).toBe(401);
    expect((await refresh(server, client.client_id, tokens.refresh_token)).response.status).toBe(400);

    expect(await act(server, admin, 'disablePerson', { personId: ownerId })).toEqual({ ok: false, error: 'You cannot disable your own account.' });

    expect(await act(server, admin, 'enablePerson', { personId: viewerId })).toMatchObject({ ok: true });
    expect((await ping(server, tokens)).status).toBe(200);
    expect((await browser.fetch(`${server.url}/settings/account`)).status).toBe(307); // an ended session stays ended
    expect((await signIn(server.url, VIEWER.email, VIEWER.password)).response.status).toBe(200);

    const events = await inspect((query) =>
      query<{ type: string; actor: string; person: string }>(
        `SELECT e.type, p.email AS actor, e.data->>'email' AS person FROM audit_events e JOIN people p ON p.id = e.actor_person_id
         WHERE e.type IN ('person.disabled', 'person.enabled') ORDER BY e.id`,
      ),
    );
    expect(events).toEqual([
      { type: 'person.disabled', actor: OWNER.email, person: VIEWER.email },
      { type: 'person.enabled', actor: OWNER.email, person: VIEWER.email },
    ]);
    admin = await session(server, OWNER);
  });

  it('creates an organization for an existing person; "instance" is never an org address', async () => {
    for (const input of [
      { name: 'Instance', ownerEmail: MEMBER.email },
      { name: 'Anything', slug: 'instance', ownerEmail: MEMBER.email },
    ]) {
      expect(await act(server, admin, 'createOrganization', input)).toEqual({
        ok: false,
        error: 'The address "instance" is reserved for Gatehouse\'s own pages (/admin/instance).',
      });
    }
    expect(await act(server, admin, 'createOrganization', { name: 'Nobody Inc', ownerEmail: 'nobody@nowhere.test' })).toEqual({
      ok: false,
      error: 'No one has an account with the email nobody@nowhere.test.',
    });
    expect(await act(server, admin, 'createOrganization', { name: 'Globex Two', ownerEmail: 'Member@Acme.test' })).toEqual({ ok: true, value: { slug: 'globex-two' } });
    expect(await act(server, admin, 'createOrganization', { name: 'Again', slug: 'globex-two', ownerEmail: MEMBER.email })).toEqual({
      ok: false,
      error: 'An organization with the address "globex-two" already exists.',
    });
    const member = await session(server, MEMBER);
    const console = await member.fetch(`${server.url}/admin/globex-two/connected-apps`);
    expect(console.status).toBe(200);
    expect(await console.text()).toContain('Globex Two');
  });

  it('rotates the keys from the console: the JWKS and new ID tokens use the new key at once', async () => {
    const client = await register(server.url, { client_name: 'OIDC App', redirect_uris: ['https://oidc.example/cb'] });
    const signIn = async () => {
      const { tokens } = await connect(server.url, client, MEMBER, { scope: 'openid mcp:read mcp:write' });
      const idToken = (tokens as Tokens & { id_token?: string }).id_token;
      expect(idToken).toBeTruthy();
      return { tokens, kid: (JSON.parse(Buffer.from(idToken!.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid };
    };
    const kid = async () => (await signIn()).kid;
    const before = await jwksKids(server);
    const earlier = await signIn();
    expect(earlier.kid).toBe('initial-rs256');

    const rotated = await act(server, admin, 'rotateKeys', {});
    expect(rotated.ok).toBe(true);
    const [rs256, es256] = (rotated as { value: string[] }).value;
    expect(rs256).toMatch(/^rs256-/);
    const after = await jwksKids(server);
    expect(after.slice(0, 2).sort()).toEqual([es256, rs256].sort());
    expect(after).toEqual(expect.arrayContaining(before)); // retired keys stay published
    // What was issued before the swap keeps working: tokens live in the database, not in the provider.
    expect((await ping(server, earlier.tokens)).status).toBe(200);
    expect((await refresh(server, client.client_id, earlier.tokens.refresh_token)).response.status).toBe(200);
    expect(await kid()).toBe(rs256); // (approving again replaces the earlier grant)

    const keysPage = await admin.fetch(`${server.url}/admin/instance/keys`);
    expect(await keysPage.text()).toMatch(/Retired · still published/);
  });

  it('lists clients and people a page at a time, searchable', async () => {
    for (let index = 1; index <= 26; index++) {
      await register(server.url, { client_name: `Bulk ${String(index).padStart(2, '0')}`, redirect_uris: [`https://bulk${index}.example/cb`] });
    }
    const text = async (path: string) => {
      const response = await admin.fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      return (await response.text()).replaceAll('<!-- -->', ''); // React's markers between text parts
    };
    const bulkRows = (html: string) => new Set(html.match(/Bulk \d\d/g)).size;
    const first = await text('/admin/instance?q=bulk');
    expect(first).toMatch(/26 clients matching “bulk” · page 1 of 2/);
    expect(bulkRows(first)).toBe(25);
    expect(bulkRows(await text('/admin/instance?q=BULK&page=2'))).toBe(1);
    const one = await text('/admin/instance?q=bulk%2007');
    expect(one).toContain('Bulk 07');
    expect(bulkRows(one)).toBe(1);
    expect(await text('/admin/instance?q=no-such-app')).toContain('No client matches this search.');

    const people = await text('/admin/instance/people?q=VIEWER');
    expect(people).toContain('viewer@acme.test');
    expect(people).not.toContain('member@acme.test');
  });

  it('refuses a forged call with invalid arguments', async () => {
    expect(await act(server, admin, 'disableClient', { clientId: '' })).toMatchObject({ ok: false });
    expect(await act(server, admin, 'disablePerson', { personId: 42 })).toMatchObject({ ok: false });
    expect(await act(server, admin, 'disableClient', { clientId: 'no-such-client' })).toEqual({
      ok: false,
      error: 'This client does not exist (it may have been deleted).',
    });
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('key rotation reaches every instance without a restart', () => {
  let first: RunningServer;
  let second: RunningServer;
  beforeAll(async () => {
    first = await startServer({ database: 'postgres' });
    // A second instance of the same installation, checking the stored keys every second.
    second = await startServer({ database: 'postgres', postgres: first.postgres!, env: { AUTH_SECRET: first.env.AUTH_SECRET!, KEY_RELOAD_SECONDS: '1' } });
  }, 90_000);
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  async function waitForKid(server: RunningServer, kid: string): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < 10_000) {
      if ((await jwksKids(server)).slice(0, 2).includes(kid)) return Date.now() - started; // the newest RS256 and ES256 keys come first
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${server.url} never published ${kid}`);
  }

  it('publishes keys rotated on another instance within KEY_RELOAD_SECONDS', async () => {
    expect(await jwksKids(second)).toEqual(await jwksKids(first));
    const admin = await session(first, OWNER);
    const rotated = await act(first, admin, 'rotateKeys', {});
    const [rs256] = (rotated as { value: string[] }).value;
    expect((await jwksKids(first)).slice(0, 2)).toContain(rs256);
    expect(await waitForKid(second, rs256!)).toBeLessThan(5_000);
  });

  it('publishes keys rotated by `npm run keys:rotate` without a restart', async () => {
    const rotated = await runCli('lib/cli/rotate-keys.ts', [], first.env);
    expect(rotated.stderr).toBe('');
    const rs256 = /New keys: (rs256-[^,]+),/.exec(rotated.stdout)?.[1];
    expect(rs256, rotated.stdout).toBeDefined();
    expect(rotated.stdout).toMatch(/no restart needed/);
    expect(await waitForKid(second, rs256!)).toBeLessThan(5_000);
  });
});

describe('create-owner', () => {
  it('refuses an organization whose address would be "instance"', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-owner-'));
    try {
      const result = await runCli('lib/cli/create-owner.ts', ['--email', 'first@example.test', '--org', 'Instance'], { DATA_DIR: dataDir }, 'a long enough password\n');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('The address "instance" is reserved for Gatehouse\'s own pages (/admin/instance).');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
