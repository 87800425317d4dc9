// Decisions on apps (docs/protocol.md §7), tried as an org admin would, with several people registering the
// same products through the real /oauth/register (the registration fixtures): a block holds against every
// registration of the app, present and future, and against any app sharing a redirect host with it, but not
// against an app that only copies its name; an approval covers exactly the app approved; an instance-wide
// block refuses the app in every org; decisions made on registrations before apps move onto their apps,
// the block winning; and what the consent screen and /mcp answer names the app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, openConsent, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';
import { registrationBody } from '../helpers/registration-fixtures';

const CLAUDE = registrationBody('Claude (claude.ai');
const CURSOR = registrationBody('Cursor (desktop');
const VSCODE = registrationBody('VS Code');
const PROXY = registrationBody('Claude Desktop - local');

const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const OWNER = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const VIEWER = { email: 'viewer@acme.test', password: TEST_DEMO_PASSWORD };

const DECIDE = { file: 'app/admin/[org]/clients/actions.ts', name: 'decideAppAction' };
const POLICY = { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction' };
const EVERYWHERE = { file: 'app/admin/instance/actions.ts', name: 'blockAppEverywhereAction' };

describe.each(DATABASES)('decisions on apps (%s database)', (database) => {
  let server: RunningServer;
  let owner: CookieJar;
  let rival: CookieJar;
  let acmeId: string;
  let globexId: string;

  beforeAll(async () => {
    server = await startServer({ database });
    // Max is a member of Acme and of Globex, so that a block in one org leaves the other open.
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [
      { email: 'rival@globex.test', name: 'Rita Rival', role: 'owner', password: TEST_DEMO_PASSWORD },
      { ...MEMBER, name: 'Max Member', role: 'member' },
    ]);
    ({ server } = await inspectDatabase(server, async (query) => {
      acmeId = (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`))[0]!.id;
      globexId = (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'globex'`))[0]!.id;
    }));
    owner = (await signIn(server.url, OWNER.email, OWNER.password)).jar;
    rival = (await signIn(server.url, 'rival@globex.test', TEST_DEMO_PASSWORD)).jar;
  });
  afterAll(async () => server?.stop());

  async function inspect<T>(work: (query: Query) => Promise<T>): Promise<T> {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    // The embedded database restarts the server: sessions live in the database and survive it.
    return inspected.result;
  }

  async function appIdOf(client: RegisteredClient): Promise<string> {
    return inspect(async (query) => (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE client_id = $1`, [client.client_id]))[0]!.app_id);
  }

  async function decide(jar: CookieJar, org: string, appId: string, decision: 'approved' | 'blocked' | 'none') {
    return (await callServerAction(server.url, jar, DECIDE, [org, { appId, decision }], `/admin/${org}`)).result as { ok: boolean; value?: { revoked: number }; error?: string };
  }

  /** The consent screen a person reaches for a client: the orgs they may pick, and the page. */
  async function consentFor(client: RegisteredClient, person = MEMBER) {
    const browser = new Browser(server.url);
    await browser.signIn(person.email, person.password);
    return openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
  }

  it('a block holds against every registration of the app, the ones made after it included, in that org only', async () => {
    // Two people connect Claude, each with a registration of their own: one app.
    const mine = await register(server.url, CLAUDE);
    const theirs = await register(server.url, CLAUDE);
    const member = await connect(server.url, mine, MEMBER, { orgId: acmeId });
    const viewer = await connect(server.url, theirs, VIEWER, { scopes: ['mcp:read'] });
    const appId = await appIdOf(mine);
    expect(await appIdOf(theirs)).toBe(appId);

    const blocked = await decide(owner, 'acme', appId, 'blocked');
    expect(blocked).toEqual({ ok: true, value: { revoked: 2, requestsAnswered: 0 } });
    for (const tokens of [member.tokens, viewer.tokens]) expect((await postMcp(server.url, tokens.access_token, rpc('ping'))).status).toBe(401);

    // A fresh registration of the same product is blocked in Acme, and only there.
    const fresh = await register(server.url, CLAUDE);
    const form = await consentFor(fresh);
    expect(form.orgIds).toEqual([globexId]);
    expect(form.disabledOrgIds).toEqual([acmeId]);
    expect(form.html).toContain('An admin of this organization blocked this app.');
    // For someone in Acme only, the page says it is blocked and by whom, and asks nothing.
    const viewerForm = await consentFor(await register(server.url, CLAUDE), VIEWER);
    expect(viewerForm.orgIds).toEqual([]);
    expect(viewerForm.html).toContain('Olivia Owner, an admin of Acme, blocked this app there.');
    expect(viewerForm.html).not.toContain('to act for you');
    expect(await decide(owner, 'acme', appId, 'none')).toEqual({ ok: true, value: { revoked: 0, requestsAnswered: 0 } });
    expect((await consentFor(fresh)).orgIds.sort()).toEqual([acmeId, globexId].sort());
  });

  it('a block covers apps that share a redirect host or scheme with it, not an app that copies only its name', async () => {
    const cursor = await register(server.url, CURSOR);
    const appId = await appIdOf(cursor);
    expect(await decide(owner, 'acme', appId, 'blocked')).toMatchObject({ ok: true });
    try {
      // Another name, same private-use scheme: another app, covered by the block.
      const renamed = await register(server.url, { ...CURSOR, client_name: 'Not Cursor', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'] });
      const form = await consentFor(renamed);
      expect(form.disabledOrgIds).toEqual([acmeId]);
      expect(form.html).toContain('blocked Cursor, which this app shares a redirect with.');
      // The same name and software_id on another host: not the app blocked (and not covered).
      const impostor = await register(server.url, { ...CURSOR, redirect_uris: ['https://cursor-lookalike.example/cb'] });
      expect((await consentFor(impostor)).orgIds.sort()).toEqual([acmeId, globexId].sort());
    } finally {
      await decide(owner, 'acme', appId, 'none');
    }
  });

  it('an approval covers exactly the app approved: "approved apps only" lets it in and nothing that copies it', async () => {
    const vscode = await register(server.url, VSCODE);
    const appId = await appIdOf(vscode);
    expect(await decide(owner, 'acme', appId, 'approved')).toEqual({ ok: true, value: { revoked: 0, requestsAnswered: 0 } });
    expect((await callServerAction(server.url, owner, POLICY, ['acme', { policy: 'approved' }], '/admin/acme')).result).toMatchObject({ ok: true });
    try {
      // Another person's registration of VS Code is the same app: approved.
      const again = await register(server.url, VSCODE);
      expect((await consentFor(again, VIEWER)).orgIds).toEqual([acmeId]);
      await connect(server.url, again, VIEWER, { scopes: ['mcp:read'] });
      // The same name with one host dropped is another app: not approved.
      const partial = await register(server.url, { ...VSCODE, redirect_uris: ['https://vscode.dev/redirect'] });
      const form = await consentFor(partial, VIEWER);
      expect(form.orgIds).toEqual([]);
      expect(form.html).toContain('This organization allows only apps an admin approved.');
      // A loopback-only app is matched by name and the rest of its key only.
      const proxy = await register(server.url, PROXY);
      expect((await consentFor(proxy, VIEWER)).orgIds).toEqual([]);
    } finally {
      await callServerAction(server.url, owner, POLICY, ['acme', { policy: 'open' }], '/admin/acme');
      await decide(owner, 'acme', appId, 'none');
    }
  });

  it('refuses to approve an app a block on another app covers, and names both', async () => {
    const blockedApp = await register(server.url, { client_name: 'Shared Host One', redirect_uris: ['https://shared-host.example/one'] });
    const sibling = await register(server.url, { client_name: 'Shared Host Two', redirect_uris: ['https://shared-host.example/two'] });
    const [blockedId, siblingId] = [await appIdOf(blockedApp), await appIdOf(sibling)];
    expect(siblingId).not.toBe(blockedId);
    expect(await decide(owner, 'acme', blockedId, 'blocked')).toMatchObject({ ok: true });
    try {
      expect(await decide(owner, 'acme', siblingId, 'approved')).toEqual({
        ok: false,
        error: 'Shared Host Two cannot be approved: it shares shared-host.example with Shared Host One, which this organization blocked. Unblock Shared Host One first.',
      });
      // Another org's block is not this org's: Globex may approve it.
      expect(await decide(rival, 'globex', siblingId, 'approved')).toMatchObject({ ok: true });
    } finally {
      await decide(owner, 'acme', blockedId, 'none');
      await decide(rival, 'globex', siblingId, 'none');
    }
  });

  it('an instance-wide block refuses the app in every org and ends its connections everywhere', async () => {
    const app = await register(server.url, { client_name: 'Everywhere App', redirect_uris: ['https://everywhere.example/cb'] });
    const inAcme = await connect(server.url, app, MEMBER, { orgId: acmeId });
    const appId = await appIdOf(app);
    // Only instance admins: an org owner who is not one is refused.
    expect((await callServerAction(server.url, rival, EVERYWHERE, [{ appId, blocked: true }], '/admin/instance')).result).toMatchObject({ ok: false });
    expect((await callServerAction(server.url, owner, EVERYWHERE, [{ appId, blocked: true }], '/admin/instance')).result).toEqual({ ok: true, value: { revoked: 1, requestsAnswered: 0 } });
    try {
      expect((await postMcp(server.url, inAcme.tokens.access_token, rpc('ping'))).status).toBe(401);
      const form = await consentFor(await register(server.url, { client_name: 'Everywhere App', redirect_uris: ['https://everywhere.example/cb'] }));
      expect(form.orgIds).toEqual([]);
      expect(form.html).toContain('Olivia Owner, an administrator of this Gatehouse, blocked this app everywhere, Acme included.');
      expect(form.html).toContain('Globex included.');
    } finally {
      await callServerAction(server.url, owner, EVERYWHERE, [{ appId, blocked: false }], '/admin/instance');
    }
    expect((await consentFor(app)).orgIds.sort()).toEqual([acmeId, globexId].sort());
  });

  it('/mcp refuses a grant whose app a block covers and names the app, even where no revocation reached the grant', async () => {
    const app = await register(server.url, { client_name: 'Late Block', redirect_uris: ['https://late-block.example/cb'] });
    const { tokens } = await connect(server.url, app, MEMBER, { orgId: acmeId });
    // A block written beside the grant without revoking it: what a block racing an approval leaves.
    await inspect((query) => query(`INSERT INTO org_app_decisions (org_id, app_id, decision) SELECT $1, app_id, 'blocked' FROM clients WHERE client_id = $2`, [acmeId, app.client_id]));
    const refused = await postMcp(server.url, tokens.access_token, rpc('ping'));
    expect(refused.status).toBe(403);
    expect(refused.body?.error.message).toBe('Late Block is blocked in Acme by an admin.');
  });

  it('moves decisions made on registrations before apps onto their apps at start-up, the block winning', async () => {
    const first = await register(server.url, { client_name: 'Legacy App', redirect_uris: ['https://legacy.example/cb'] });
    const second = await register(server.url, { client_name: 'Legacy App', redirect_uris: ['https://legacy.example/cb'] });
    await inspect(async (query) => {
      await query(`INSERT INTO org_client_decisions (org_id, client_id, decision, decided_at) VALUES ($1, $2, 'blocked', now() - interval '1 day'), ($1, $3, 'approved', now())`, [
        acmeId,
        first.client_id,
        second.client_id,
      ]);
      // As if registered before apps: start-up must first give them their app, then move the decisions.
      await query(`UPDATE clients SET app_id = NULL WHERE client_id IN ($1, $2)`, [first.client_id, second.client_id]);
    });
    await server.halt();
    server = await startServer(server.restartOptions);
    const rows = await inspect((query) =>
      query<{ decision: string; legacy: number }>(
        `SELECT d.decision::text AS decision, (SELECT count(*)::int FROM org_client_decisions) AS legacy
           FROM org_app_decisions d JOIN clients c ON c.app_id = d.app_id WHERE c.client_id = $1 AND d.org_id = $2`,
        [first.client_id, acmeId],
      ),
    );
    expect(rows).toEqual([{ decision: 'blocked', legacy: 0 }]);
    expect((await consentFor(second)).disabledOrgIds).toEqual([acmeId]);
  }, 120_000);
});
