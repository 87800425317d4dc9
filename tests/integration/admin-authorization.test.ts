// The console's server actions and pages are public endpoints: these tests forge them directly — no page,
// any arguments — as people who must be refused (signed out, a member, a viewer, an admin of another
// org, an admin where an owner is needed), with the ids of another org, and check that the database did
// not change. A positive control shows the same forged call succeeds for the right person.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase } from '../helpers/inspect';
import { connect, register } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';
import { echoTool, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

const ACTIONS = {
  revokeGrant: { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeGrantAction' },
  revokeClient: { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeClientAction' },
  decideApp: { file: 'app/admin/[org]/clients/actions.ts', name: 'decideAppAction' },
  setAppPolicy: { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction' },
  registerClient: { file: 'app/admin/[org]/clients/actions.ts', name: 'registerClientAction' },
  approveDocument: { file: 'app/admin/[org]/clients/approve/actions.ts', name: 'approveDocumentAction' },
  approveRequest: { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'approveRequestAction' },
  declineRequest: { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'declineRequestAction' },
  setToolRestricted: { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction' },
  setConnectorEnabled: { file: 'app/admin/[org]/connectors/actions.ts', name: 'setConnectorEnabledAction' },
  setPlanStatus: { file: 'app/admin/[org]/plan/actions.ts', name: 'setPlanStatusAction' },
} as const;

const ACCOUNT = {
  endSessions: { file: 'app/settings/account/actions.ts', name: 'endSessionsAction' },
  changePassword: { file: 'app/settings/account/actions.ts', name: 'changePasswordAction' },
  revokeConnectedApp: { file: 'app/settings/connected-apps/actions.ts', name: 'revokeConnectedApp' },
} as const;

/** The instance console's review of a connector's held tools: instance admins only, whatever org someone runs. */
const REVIEW_FILE = 'app/admin/instance/connectors/[slug]/tools/actions.ts';
const INSTANCE_ACTIONS = {
  approveHeldTools: { file: REVIEW_FILE, name: 'approveHeldToolsAction' },
  keepHolding: { file: REVIEW_FILE, name: 'keepHoldingAction' },
  setToolScope: { file: REVIEW_FILE, name: 'setToolScopeAction' },
} as const;
const REVIEW_PAGE = '/admin/instance/connectors/review/tools';
/** The hash of the held definition the review connector's held tool was stored with. */
const HELD_HASH = 'd'.repeat(64);
const CONNECTORS = 'app/admin/instance/connectors/actions.ts';
/** The instance console's connector actions: instance admins only, whatever the org role. */
const INSTANCE_CONNECTOR_ACTIONS = {
  testConnection: { file: CONNECTORS, name: 'testConnectionAction' },
  addConnector: { file: CONNECTORS, name: 'addConnectorAction' },
  updateConnector: { file: CONNECTORS, name: 'updateConnectorAction' },
  replaceCredential: { file: CONNECTORS, name: 'replaceCredentialAction' },
  refreshConnector: { file: CONNECTORS, name: 'refreshConnectorAction' },
  setConnectorStatus: { file: CONNECTORS, name: 'setConnectorStatusAction' },
  offerConnector: { file: CONNECTORS, name: 'offerConnectorAction' },
  removeConnector: { file: CONNECTORS, name: 'removeConnectorAction' },
} as const;
const INSTANCE_CONNECTOR_PAGES = ['/admin/instance/connectors', '/admin/instance/connectors/new', '/admin/instance/connectors/shared'];

const PAGES = ['', '/connected-apps', '/clients', '/clients/approve', '/clients/requests', '/members', '/connectors', '/tools', '/plan', '/audit', '/calls'];

describe.each([DATABASES.at(-1)!])('console authorization (%s database)', (database) => {
  let server: RunningServer;
  const jars: Record<'member' | 'viewer' | 'owner' | 'acmeAdmin' | 'rival', CookieJar> = {} as never;
  let acmeGrant: string;
  let acmeClient: string;
  let globexGrant: string;
  let globexClient: string;
  let acmeAppId: string;
  /** The app of a client Globex's owner registered by hand: no other org may decide on it. */
  let globexOwnAppId: string;
  /** A member's pending request in Acme, and one in Globex, written straight into the database. */
  let acmeRequest: string;
  let globexRequest: string;

  let upstream: RunningUpstream;

  beforeAll(async () => {
    upstream = await startUpstream({ stateful: false, tools: [echoTool('ping')] });
    server = await startServer({ database });
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [{ email: 'rival@globex.test', name: 'Rita Rival', role: 'owner', password: TEST_DEMO_PASSWORD }]);
    server = await addOrg(server, { slug: 'acme-partners', name: 'Acme Partners' }, [{ email: 'admin@acme.test', name: 'Adam Admin', role: 'member', password: TEST_DEMO_PASSWORD }]);
    // Adam is an admin (not owner) of Acme.
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(
        `INSERT INTO memberships (id, person_id, org_id, role, updated_at)
         SELECT gen_random_uuid()::text, p.id, o.id, 'admin', now() FROM people p, organizations o WHERE p.email = 'admin@acme.test' AND o.slug = 'acme'`,
      );
    }));
    const { url } = server;
    const acmeApp = await register(url, { client_name: 'Acme App', redirect_uris: ['https://acme-app.example/cb'] });
    const globexApp = await register(url, { client_name: 'Globex App', redirect_uris: ['https://globex-app.example/cb'] });
    acmeClient = acmeApp.client_id;
    globexClient = globexApp.client_id;
    await connect(url, acmeApp, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD });
    await connect(url, globexApp, { email: 'rival@globex.test', password: TEST_DEMO_PASSWORD });
    ({ server } = await inspectDatabase(server, async (query) => {
      acmeGrant = (await query<{ id: string }>(`SELECT g.id FROM grants g JOIN organizations o ON o.id = g.org_id WHERE o.slug = 'acme'`))[0]!.id;
      globexGrant = (await query<{ id: string }>(`SELECT g.id FROM grants g JOIN organizations o ON o.id = g.org_id WHERE o.slug = 'globex'`))[0]!.id;
      acmeAppId = (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE client_id = $1`, [acmeClient]))[0]!.app_id;
    }));
    const rivalJar = (await signIn(server.url, 'rival@globex.test', TEST_DEMO_PASSWORD)).jar;
    const own = await callServerAction(server.url, rivalJar, ACTIONS.registerClient, ['globex', { name: 'Globex Internal', redirectUris: ['https://internal.globex.example/cb'] }], '/admin/globex');
    expect(own.result).toMatchObject({ ok: true });
    ({ server } = await inspectDatabase(server, async (query) => {
      globexOwnAppId = (await query<{ app_id: string }>(`SELECT c.app_id FROM clients c WHERE c.owner_org_id = (SELECT id FROM organizations WHERE slug = 'globex')`))[0]!.app_id;
      const ask = async (org: string, email: string) =>
        (
          await query<{ id: string }>(
            `INSERT INTO access_requests (id, org_id, app_id, person_id, note, updated_at, expires_at)
             SELECT gen_random_uuid()::text, o.id, $3, p.id, 'please', now(), now() + interval '30 days' FROM organizations o, people p WHERE o.slug = $1 AND p.email = $2
             RETURNING id`,
            [org, email, acmeAppId],
          )
        )[0]!.id;
      acmeRequest = await ask('acme', 'member@acme.test');
      globexRequest = await ask('globex', 'rival@globex.test');
    }));
    // A connector with a held tool and an offered one, stored as a refresh leaves them (no upstream is reached here).
    ({ server } = await inspectDatabase(server, async (query) => {
      const definition = (description: string) => JSON.stringify({ name: 'x', title: null, description, inputSchema: { type: 'object' }, outputSchema: null, annotations: null });
      await query(`INSERT INTO connectors (id, slug, name, url, updated_at) VALUES ('review-connector', 'review', 'Review', 'http://127.0.0.1:9/mcp', now())`);
      await query(
        `INSERT INTO connector_tools (connector_id, upstream_name, exposed_name, status, hold_reason, pinned, pinned_hash, held, held_hash, updated_at) VALUES
           ('review-connector', 'held_tool', 'review__held_tool', 'held', 'changed', $1::jsonb, $2, $3::jsonb, $4, now()),
           ('review-connector', 'plain', 'review__plain', 'active', NULL, $1::jsonb, $2, NULL, NULL, now())`,
        [definition('Before.'), 'e'.repeat(64), definition('After.'), HELD_HASH],
      );
    }));
    for (const [name, email] of [
      ['member', 'member@acme.test'],
      ['viewer', 'viewer@acme.test'],
      ['owner', 'owner@acme.test'],
      ['acmeAdmin', 'admin@acme.test'],
      ['rival', 'rival@globex.test'],
    ] as const) {
      jars[name] = (await signIn(server.url, email, TEST_DEMO_PASSWORD)).jar;
    }
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.stop();
  });

  /** Reads the database (the embedded one restarts the server: keep the new one). */
  async function inspect<T>(work: Parameters<typeof inspectDatabase<T>>[1]): Promise<T> {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    return inspected.result;
  }

  /** Everything a console action can change, as one comparable value. */
  async function state(): Promise<unknown> {
    return inspect(async (query) => ({
      grants: await query(`SELECT id, revoked_at IS NULL AS live FROM grants ORDER BY id`),
      decisions: await query(`SELECT org_id, app_id, decision::text FROM org_app_decisions ORDER BY org_id, app_id`),
      restrictions: await query(`SELECT org_id, tool_name FROM tool_restrictions ORDER BY org_id, tool_name`),
      connectorsOn: await query(`SELECT org_id, connector_id FROM org_connectors ORDER BY org_id, connector_id`),
      connectors: await query(`SELECT slug, name, description, url, timeout_ms, status, credential_sealed, offered_to_all FROM connectors ORDER BY slug`),
      connectorTools: await query(`SELECT connector_id, upstream_name, status, hold_reason, pinned_hash, held_hash, scope_override FROM connector_tools ORDER BY 1, 2`),
      offers: await query(`SELECT connector_id, org_id FROM connector_offers ORDER BY 1, 2`),
      orgs: await query(`SELECT slug, plan_status::text, app_policy::text FROM organizations ORDER BY slug`),
      clients: await query(`SELECT client_id FROM clients ORDER BY client_id`),
      requests: await query(`SELECT id, status::text, note, decided_by_id FROM access_requests ORDER BY id`),
      adminEvents: await query(
        `SELECT count(*)::int AS n FROM audit_events WHERE type LIKE 'client.%' OR type LIKE 'app.%' OR type LIKE 'org.%' OR type LIKE 'tool.%' OR type LIKE 'access_request.%' OR type LIKE 'connector.%' OR type = 'grant.revoked'`,
      ),
    }));
  }

  const forged = () => ({
    revokeGrant: { grantId: acmeGrant },
    revokeClient: { clientId: acmeClient },
    decideApp: { appId: acmeAppId, decision: 'blocked' },
    setAppPolicy: { policy: 'approved' },
    registerClient: { name: 'Forged', redirectUris: ['https://forged.example/cb'] },
    approveDocument: { url: 'https://forged-document.example/client.json' },
    approveRequest: { requestId: acmeRequest },
    declineRequest: { requestId: acmeRequest },
    setToolRestricted: { tool: 'whoami', restricted: true },
    setConnectorEnabled: { slug: 'notes', enabled: true },
    setPlanStatus: { status: 'inactive' },
  });

  it('refuses every org action to the signed out, members, viewers and admins of another org, and changes nothing', async () => {
    const before = await state();
    for (const [key, action] of Object.entries(ACTIONS)) {
      const input = forged()[key as keyof typeof ACTIONS];
      for (const who of [null, jars.member, jars.viewer, jars.rival]) {
        const call = await callServerAction(server.url, who, action, ['acme', input], '/admin/acme');
        expect(call.result, `${action.name} as ${who ? 'someone' : 'nobody'}`).toMatchObject({ ok: false });
      }
    }
    expect(await state()).toEqual(before);
  });

  it('refuses owner-only actions to an admin', async () => {
    const before = await state();
    for (const action of [ACTIONS.setPlanStatus, ACTIONS.registerClient]) {
      const input = action === ACTIONS.setPlanStatus ? forged().setPlanStatus : forged().registerClient;
      const call = await callServerAction(server.url, jars.acmeAdmin, action, ['acme', input], '/admin/acme');
      expect(call.result).toEqual({ ok: false, error: 'Your role in Acme ("admin") does not allow this.' });
    }
    expect(await state()).toEqual(before);
  });

  it("answers another org's ids as unknown, even to an owner acting in their own org", async () => {
    const before = await state();
    const owner = jars.owner;
    const attempts: [keyof typeof ACTIONS, unknown][] = [
      ['revokeGrant', { grantId: globexGrant }],
      // Self-registered apps are the installation's (any org may decide on them); hand-registered ones are their org's.
      ['decideApp', { appId: globexOwnAppId, decision: 'approved' }],
      ['decideApp', { appId: 'no-such-app', decision: 'blocked' }],
      ['revokeClient', { clientId: globexClient }],
      // A request is answered only by the admins of the org it was made in.
      ['approveRequest', { requestId: globexRequest }],
      ['declineRequest', { requestId: globexRequest }],
    ];
    for (const [key, input] of attempts) {
      const call = await callServerAction(server.url, owner, ACTIONS[key], ['acme', input], '/admin/acme');
      // revokeClient scopes itself to the org: it succeeds with nothing to revoke.
      if (key === 'revokeClient') expect(call.result).toEqual({ ok: true, value: 0 });
      else expect(call.result).toMatchObject({ ok: false });
    }
    // …and the rival cannot reach Acme's grant through Globex either.
    const call = await callServerAction(server.url, jars.rival, ACTIONS.revokeGrant, ['globex', { grantId: acmeGrant }], '/admin/globex');
    expect(call.result).toEqual({ ok: false, error: 'This connection does not exist in this organization.' });
    expect(await state()).toEqual(before);
  });

  it('rejects malformed input without changing anything', async () => {
    const before = await state();
    const bad: [keyof typeof ACTIONS, unknown[]][] = [
      ['setPlanStatus', ['acme', { status: 'free-forever' }]],
      ['setToolRestricted', ['acme', { tool: 'no_such_tool', restricted: true }]],
      ['setToolRestricted', ['acme', { tool: 'whoami', restricted: 'yes' }]],
      // A connector tool's name is accepted only while its connector is on for the org.
      ['setToolRestricted', ['acme', { tool: 'notes__search', restricted: true }]],
      ['setConnectorEnabled', ['acme', { slug: 'no-such-connector', enabled: true }]],
      ['setConnectorEnabled', ['acme', { slug: 'notes', enabled: 'yes' }]],
      ['setConnectorEnabled', ['acme', { slug: 'n'.repeat(1000), enabled: true }]],
      ['registerClient', ['acme', { name: '', redirectUris: [] }]],
      ['registerClient', ['acme', { name: 'X', redirectUris: ['not a url'] }]],
      // The redirect-URI rules of self-registration hold for clients an owner registers too.
      ['registerClient', ['acme', { name: 'X', redirectUris: ['https://evil.test\\@good.test/cb'] }]],
      ['registerClient', ['acme', { name: 'X', redirectUris: ['https:evil.test/cb'] }]],
      ['registerClient', ['acme', { name: 'X', redirectUris: ['https://good.test/\u202Ebc/cb'] }]],
      // And so does the rule on invisible characters in what people are shown.
      ['registerClient', ['acme', { name: 'Trusted\u202Eeton', redirectUris: ['https://good.test/cb'] }]],
      ['registerClient', ['acme', { name: 'Trus\u200Bted', redirectUris: ['https://good.test/cb'] }]],
      ['decideApp', ['acme', { appId: acmeAppId, decision: 'maybe' }]],
      ['decideApp', ['acme', { appId: acmeAppId.repeat(3), decision: 'blocked' }]],
      // A metadata document URL is checked before anything is fetched.
      ['approveDocument', ['acme', { url: 'http://forged-document.example/client.json' }]],
      ['approveDocument', ['acme', { url: 'https://user@forged-document.example/client.json' }]],
      ['approveDocument', ['acme', { url: ['https://forged-document.example/client.json'] }]],
      ['setAppPolicy', ['../globex', { policy: 'approved' }]],
      ['setAppPolicy', [{ slug: 'acme' }, { policy: 'approved' }]],
      ['revokeGrant', ['acme', null]],
      ['approveRequest', ['acme', { requestId: '' }]],
      ['declineRequest', ['acme', { requestId: acmeRequest.repeat(3) }]],
      ['approveRequest', ['acme', { requestId: { id: acmeRequest } }]],
    ];
    for (const [key, args] of bad) {
      const call = await callServerAction(server.url, jars.owner, ACTIONS[key], args, '/admin/acme');
      expect(call.result, `${key} ${JSON.stringify(args)}`).toMatchObject({ ok: false });
    }
    expect(await state()).toEqual(before);
  });

  it('does what it is asked for the right person (the same forged call, as the owner)', async () => {
    const call = await callServerAction(server.url, jars.owner, ACTIONS.setToolRestricted, ['acme', { tool: 'list_members', restricted: true }], '/admin/acme');
    expect(call.result).toMatchObject({ ok: true });
    const result = await inspect(async (query) => ({
      restriction: await query(`SELECT t.tool_name FROM tool_restrictions t JOIN organizations o ON o.id = t.org_id WHERE o.slug = 'acme'`),
      audit: await query<{ actor: string; data: unknown }>(`SELECT p.email AS actor, a.data FROM audit_events a JOIN people p ON p.id = a.actor_person_id WHERE a.type = 'tool.restricted'`),
    }));
    expect(result.restriction).toEqual([{ tool_name: 'list_members' }]);
    expect(result.audit).toEqual([{ actor: 'owner@acme.test', data: { tool: 'list_members' } }]);
  });

  it('refuses every instance connector action and page to the signed out, members, org admins and owners of an org who are not instance admins', async () => {
    // A connector to aim at, added by the instance admin (the positive control of the same endpoint).
    const added = await callServerAction(
      server.url,
      jars.owner,
      INSTANCE_CONNECTOR_ACTIONS.addConnector,
      [{ slug: 'shared', url: upstream.url, name: 'Shared', description: '', timeoutSeconds: 5, credential: { kind: 'headers', headers: 'X-Api-Key: instance-only' } }],
      '/admin/instance/connectors',
    );
    expect(added.result).toEqual({ ok: true, value: { slug: 'shared', tools: 1, problems: [] } });
    const before = await state();
    const credential = { kind: 'headers', headers: 'X-Api-Key: forged' };
    const forgedInput: Record<keyof typeof INSTANCE_CONNECTOR_ACTIONS, unknown> = {
      testConnection: { slug: 'probe', url: upstream.url, name: 'Probe', description: '', timeoutSeconds: 5, credential },
      addConnector: { slug: 'forged', url: upstream.url, name: 'Forged', description: '', timeoutSeconds: 5, credential },
      updateConnector: { slug: 'shared', name: 'Forged', description: 'forged', url: upstream.url, timeoutSeconds: 9 },
      replaceCredential: { slug: 'shared', credential },
      refreshConnector: { slug: 'shared' },
      setConnectorStatus: { slug: 'shared', status: 'disabled' },
      offerConnector: { slug: 'shared', all: true, orgs: [] },
      removeConnector: { slug: 'shared', confirm: 'shared' },
    };
    const upstreamRequests = upstream.log.length;
    for (const [key, target] of Object.entries(INSTANCE_CONNECTOR_ACTIONS)) {
      for (const [who, jar] of [
        ['nobody', null],
        ['a member', jars.member],
        ['a viewer', jars.viewer],
        ['an org admin', jars.acmeAdmin],
        ['the owner of another org', jars.rival],
      ] as const) {
        const call = await callServerAction(server.url, jar, target, [forgedInput[key as keyof typeof INSTANCE_CONNECTOR_ACTIONS]], '/admin/instance/connectors');
        expect(call.result, `${target.name} as ${who}`).toEqual({ ok: false, error: jar ? 'Only instance admins can do this.' : 'Your session has ended: sign in again.' });
      }
    }
    // Refused before any work: not even Test connection reached the upstream.
    expect(upstream.log.length).toBe(upstreamRequests);
    expect(await state()).toEqual(before);
    for (const path of INSTANCE_CONNECTOR_PAGES) {
      const anonymous = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(anonymous.status, path).toBe(307);
      expect(anonymous.headers.get('location'), path).toContain(`/login?callbackUrl=${encodeURIComponent(path)}`);
      for (const who of [jars.member, jars.viewer, jars.acmeAdmin, jars.rival]) expect((await who.fetch(`${server.url}${path}`)).status, path).toBe(404);
      expect((await jars.owner.fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
  });

  // A refusal, not a failure: 403 with a JSON answer (the framework's own check answered 500).
  const expectCrossSiteRefused = (call: { status: number; body: string; result: unknown }, key: string) => {
    expect(call.status, `${key}: ${call.body.slice(0, 200)}`).toBe(403);
    expect(JSON.parse(call.body), key).toEqual({ error: 'forbidden', error_description: expect.stringMatching(/another site/) });
    expect(call.result, key).toBeUndefined();
  };

  it('refuses every console action posted from another site, even with the owner’s own cookies (CSRF), with 403', async () => {
    const before = await state();
    const forgedInput = forged();
    for (const origin of ['https://evil.example', 'null', `${server.url}.evil.example`, 'not a url']) {
      for (const [key, action] of Object.entries(ACTIONS)) {
        const input = forgedInput[key as keyof typeof ACTIONS];
        expectCrossSiteRefused(await callServerAction(server.url, jars.owner, action, ['acme', input], '/admin/acme', origin), `${key} from ${origin}`);
      }
      for (const [key, action] of Object.entries(INSTANCE_CONNECTOR_ACTIONS)) {
        expectCrossSiteRefused(await callServerAction(server.url, jars.owner, action, [{ slug: 'shared' }], '/admin/instance/connectors', origin), `${key} from ${origin}`);
      }
    }
    // The settings actions likewise: "sign out of all other sessions", forged from another site, leaves the
    // owner's other browser signed in.
    const otherBrowser = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
    const settings: [keyof typeof ACCOUNT, unknown[], string][] = [
      ['endSessions', [null], '/settings/account'],
      ['changePassword', [null, { current: TEST_DEMO_PASSWORD, next: 'a-new-password-1', confirm: 'a-new-password-1' }], '/settings/account'],
      ['revokeConnectedApp', [acmeGrant], '/settings/connected-apps'],
    ];
    for (const [key, args, page] of settings) {
      expectCrossSiteRefused(await callServerAction(server.url, jars.owner, ACCOUNT[key], args, page, 'https://evil.example'), key);
    }
    expect(await state()).toEqual(before);
    expect((await otherBrowser.fetch(`${server.url}/admin/acme/plan`)).status).toBe(200);
  });

  it('shows console pages only to people with the permission: others get 404, the signed out go to sign in', async () => {
    for (const page of PAGES) {
      const path = `/admin/acme${page}`;
      const anonymous = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(anonymous.status, path).toBe(307);
      expect(anonymous.headers.get('location'), path).toContain(`/login?callbackUrl=${encodeURIComponent(path)}`);
      for (const who of [jars.member, jars.viewer, jars.rival]) expect((await who.fetch(`${server.url}${path}`)).status, path).toBe(404);
    }
    expect((await jars.acmeAdmin.fetch(`${server.url}/admin/acme/plan`)).status).toBe(404);
    expect((await jars.acmeAdmin.fetch(`${server.url}/admin/acme/members`)).status).toBe(200);
    expect((await jars.owner.fetch(`${server.url}/admin/acme/plan`)).status).toBe(200);
    expect((await jars.owner.fetch(`${server.url}/admin/globex`)).status).toBe(404);
    expect((await jars.owner.fetch(`${server.url}/admin/no-such-org`)).status).toBe(404);
  });

  it("lets a person end only their own sign-in sessions: another person's session id changes nothing", async () => {
    const liveSessions = () =>
      inspect((query) => query<{ email: string; id: string }>(`SELECT p.email, s.id FROM sign_in_sessions s JOIN people p ON p.id = s.person_id WHERE s.ended_at IS NULL ORDER BY p.email, s.id`));
    const before = await liveSessions();
    const ownerSession = before.find((row) => row.email === 'owner@acme.test')!.id;
    const forged = await callServerAction(server.url, jars.rival, ACCOUNT.endSessions, [ownerSession], '/settings/account');
    expect(forged.result).toEqual({ ok: true, ended: 0 });
    const anonymous = await callServerAction(server.url, null, ACCOUNT.endSessions, [null], '/settings/account');
    expect(anonymous.result).toEqual({ ok: false, error: 'Your session has ended: sign in again.' });
    const malformed = await callServerAction(server.url, jars.rival, ACCOUNT.endSessions, [{ id: ownerSession }], '/settings/account');
    expect(malformed.result).toEqual({ ok: false, error: 'Unknown session.' });
    expect(await liveSessions()).toEqual(before);
    expect((await jars.owner.fetch(`${server.url}/settings/account`)).status).toBe(200);
  });

  const reviewInput = {
    approveHeldTools: { slug: 'review', decisions: [{ tool: 'held_tool', heldHash: HELD_HASH }] },
    keepHolding: { slug: 'review', tool: 'held_tool', heldHash: HELD_HASH },
    setToolScope: { slug: 'review', tool: 'plain', scope: 'mcp:read', confirmLowering: true },
  } as const;

  it('refuses the held-tools review page and its actions to everyone but instance admins (an org owner or admin is not one), from this site only, and changes nothing', async () => {
    const before = await state();
    const anonymous = await fetch(`${server.url}${REVIEW_PAGE}`, { redirect: 'manual' });
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get('location')).toContain(`/login?callbackUrl=${encodeURIComponent(REVIEW_PAGE)}`);
    for (const who of [jars.member, jars.viewer, jars.acmeAdmin, jars.rival]) {
      const html = await (await who.fetch(`${server.url}${REVIEW_PAGE}`)).text();
      expect(html).not.toContain('review__held_tool');
      expect((await who.fetch(`${server.url}${REVIEW_PAGE}`)).status).toBe(404);
    }
    for (const [key, action] of Object.entries(INSTANCE_ACTIONS)) {
      const input = reviewInput[key as keyof typeof INSTANCE_ACTIONS];
      expect((await callServerAction(server.url, null, action, [input], REVIEW_PAGE)).result, key).toEqual({ ok: false, error: 'Your session has ended: sign in again.' });
      for (const who of [jars.member, jars.viewer, jars.acmeAdmin, jars.rival]) {
        expect((await callServerAction(server.url, who, action, [input], REVIEW_PAGE)).result, key).toEqual({ ok: false, error: 'Only instance admins can do this.' });
      }
      // The instance admin's own cookies, posted from another site (CSRF).
      expectCrossSiteRefused(await callServerAction(server.url, jars.owner, action, [input], REVIEW_PAGE, 'https://evil.example'), key);
    }
    expect(await state()).toEqual(before);
  });

  it('lets the instance admin review: the page opens, an unknown connector is a 404, the same forged decision succeeds', async () => {
    expect((await jars.owner.fetch(`${server.url}${REVIEW_PAGE}`)).status).toBe(200);
    expect((await jars.owner.fetch(`${server.url}/admin/instance/connectors/no-such-connector/tools`)).status).toBe(404);
    const kept = await callServerAction(server.url, jars.owner, INSTANCE_ACTIONS.keepHolding, [reviewInput.keepHolding], REVIEW_PAGE);
    expect(kept.result).toEqual({ ok: true, value: 'held_tool' });
    const audit = await inspect((query) => query<{ actor: string }>(`SELECT p.email AS actor FROM audit_events a JOIN people p ON p.id = a.actor_person_id WHERE a.type = 'connector.tool_kept_held'`));
    expect(audit).toEqual([{ actor: 'owner@acme.test' }]);
  });
});
