// Requests for access (docs/protocol.md §5, §7), tried as people would through the real consent screen and
// console actions: in an org that allows approved apps only, a member asks an admin instead of meeting a
// dead end; asking again replaces the note of the one request; the owner approves it (approving the app) and
// the member's next attempt connects; a decline and an expiry (the sweeper) end a request, and asking
// again reopens it; every step is an audit event. Hostile and forged asks, asks that are not allowed, the
// rate limit and another org's admin are refused, and change nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/cli/standalone';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { authorizeUrl, Browser, connect, type ConsentForm, openConsent, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { freePort, startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

type Fixture = { client: string; registration_body: Record<string, unknown> };
const fixtures = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json'), 'utf8')) as Fixture[];
const body = (prefix: string) => fixtures.find((fixture) => fixture.client.startsWith(prefix))!.registration_body;
const CURSOR = body('Cursor (desktop');
const VSCODE = body('VS Code');

const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const VIEWER = { email: 'viewer@acme.test', password: TEST_DEMO_PASSWORD };
const BUSY = { email: 'busy@acme.test', password: TEST_DEMO_PASSWORD };

const POLICY = { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction' };
const DECIDE = { file: 'app/admin/[org]/clients/actions.ts', name: 'decideAppAction' };
const APPROVE = { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'approveRequestAction' };
const DECLINE = { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'declineRequestAction' };

/** A page's text as a person reads it: without the markers React puts between adjacent text parts. */
const visible = (html: string) => html.replaceAll('<!-- -->', '');

type RequestRow = { id: string; status: string; note: string | null; person: string; decided_by: string | null };

describe.each(DATABASES)('access requests (%s database)', (database) => {
  let server: RunningServer;
  let owner: CookieJar;
  let rival: CookieJar;
  let acmeId: string;
  let globexId: string;
  let initechId: string;

  beforeAll(async () => {
    server = await startServer({ database, env: { SWEEP_INTERVAL_SECONDS: '1' } });
    // Max is in Acme (approved apps only) and Globex (open); Rita owns Globex; Umbrella is an org Max is not in.
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [
      { email: 'rival@globex.test', name: 'Rita Rival', role: 'owner', password: TEST_DEMO_PASSWORD },
      { ...MEMBER, name: 'Max Member', role: 'member' },
    ]);
    server = await addOrg(server, { slug: 'umbrella', name: 'Umbrella' }, [{ ...BUSY, name: 'Bea Busy', role: 'member' }]);
    ({ server } = await inspectDatabase(server, async (query) => {
      acmeId = (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`))[0]!.id;
      globexId = (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'globex'`))[0]!.id;
      initechId = (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'umbrella'`))[0]!.id;
      await query(`UPDATE organizations SET app_policy = 'approved' WHERE slug = 'umbrella'`);
      // Bea is a member of Acme too: the rate limit is tried with her, so that it does not spend Max's asks.
      await query(`INSERT INTO memberships (id, person_id, org_id, role, updated_at) SELECT gen_random_uuid()::text, p.id, $1, 'member', now() FROM people p WHERE p.email = 'busy@acme.test'`, [
        acmeId,
      ]);
    }));
    owner = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
    rival = (await signIn(server.url, 'rival@globex.test', TEST_DEMO_PASSWORD)).jar;
    expect((await callServerAction(server.url, owner, POLICY, ['acme', { policy: 'approved' }], '/admin/acme')).result).toMatchObject({ ok: true });
  });
  afterAll(async () => server?.stop());

  async function inspect<T>(work: (query: Query) => Promise<T>): Promise<T> {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    return inspected.result;
  }

  async function appIdOf(client: RegisteredClient): Promise<string> {
    return inspect(async (query) => (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE client_id = $1`, [client.client_id]))[0]!.app_id);
  }

  type AuditRow = { type: string; actor: string | null; org_id: string | null; data: Record<string, unknown> };
  type Snapshot = { requests: RequestRow[]; audit: (type: string) => AuditRow[] };

  /** The requests, and the audit events of requests and approvals. */
  async function readSnapshot(query: Query): Promise<Snapshot> {
    const rows = await query<RequestRow>(
      `SELECT r.id, r.status::text AS status, r.note, p.email AS person, r.decided_by_id AS decided_by FROM access_requests r JOIN people p ON p.id = r.person_id ORDER BY r.created_at, r.id`,
    );
    const events = await query<AuditRow>(
      `SELECT a.type, p.email AS actor, a.org_id, a.data FROM audit_events a LEFT JOIN people p ON p.id = a.actor_person_id WHERE a.type LIKE 'access_request.%' OR a.type = 'app.approved' ORDER BY a.id`,
    );
    return { requests: rows, audit: (type) => events.filter((event) => event.type === type) };
  }

  /** Read at once: each read of the embedded database restarts the server. */
  function snapshot(): Promise<Snapshot> {
    return inspect(readSnapshot);
  }

  async function requests(): Promise<RequestRow[]> {
    return (await snapshot()).requests;
  }

  /** A person's consent screen for a client, in a browser of their own. */
  async function consentFor(client: RegisteredClient, person = MEMBER): Promise<{ browser: Browser; form: ConsentForm }> {
    const browser = new Browser(server.url);
    await browser.signIn(person.email, person.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    return { browser, form: { ...form, html: visible(form.html) } };
  }

  /** Posts "Ask an admin" as the browser would; returns where it ends and what that page says. */
  async function ask(browser: Browser, form: ConsentForm, orgId: string, note: string, overrides: { csrf?: string | null; origin?: string } = {}) {
    const fields = new URLSearchParams({ organization: orgId, note });
    const csrf = overrides.csrf === undefined ? form.csrf : overrides.csrf;
    if (csrf !== null) fields.set('csrf', csrf);
    const { response, url } = await browser.follow(`${server.url}/consent/${form.uid}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: overrides.origin ?? server.url },
      body: fields.toString(),
    });
    return { status: response.status, url, html: visible(await response.text()) };
  }

  async function answer(action: typeof APPROVE, jar: CookieJar | null, org: string, requestId: string) {
    return (await callServerAction(server.url, jar, action, [org, { requestId }], `/admin/${org}/clients/requests`)).result as { ok: boolean; value?: Record<string, number>; error?: string };
  }

  it('offers "Ask an admin" where only the policy refuses the app; asking again keeps one request with the new note; approving lets the member connect', async () => {
    const cursor = await register(server.url, CURSOR);
    const appId = await appIdOf(cursor);
    const { browser, form } = await consentFor(cursor);
    // Globex (open) can be picked; Acme offers the ask form instead of a dead end.
    expect(form.orgIds).toEqual([globexId]);
    expect(form.disabledOrgIds).toEqual([acmeId]);
    expect(form.html).toContain('Ask an admin of Acme');
    expect(form.html).not.toContain('Ask an admin of Globex');

    const sent = await ask(browser, form, acmeId, 'For the weekly reports');
    expect(sent.status).toBe(200);
    expect(sent.url).toContain(`/consent/${form.uid}?asked=${acmeId}`);
    expect(sent.html).toContain('Request sent to the admins of Acme');
    let seen = await snapshot();
    expect(seen.requests).toEqual([expect.objectContaining({ status: 'pending', note: 'For the weekly reports', person: MEMBER.email, decided_by: null })]);
    expect(seen.audit('access_request.created')).toEqual([expect.objectContaining({ actor: MEMBER.email, org_id: acmeId, data: expect.objectContaining({ appId, app: 'Cursor', reopened: false }) })]);

    // Asking again while it is pending: the same request, the note replaced; the page says when it was asked.
    await ask(browser, form, acmeId, 'For the weekly reports,\r\nand the monthly ones');
    seen = await snapshot();
    const rows = seen.requests;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.note).toBe('For the weekly reports,\nand the monthly ones');
    expect(seen.audit('access_request.updated')).toHaveLength(1);
    const again = await consentFor(cursor);
    expect(again.form.html).toMatch(/You asked the admins of Acme on \d+ \w+ \d{4}/);
    expect(again.form.html).toContain('Update your request to the admins of Acme');

    // The console: the count in the nav and on the tab, the note as text.
    const page = await owner.fetch(`${server.url}/admin/acme/clients/requests`);
    expect(page.status).toBe(200);
    const html = visible(await page.text());
    expect(html).toContain('Requests (1)');
    expect(html).toContain('data-testid="nav-count"');
    expect(html).toContain('and the monthly ones');
    expect(html).toContain(MEMBER.email);

    const approved = await answer(APPROVE, owner, 'acme', rows[0]!.id);
    expect(approved).toEqual({ ok: true, value: { approved: 1 } });
    seen = await snapshot();
    const [row] = seen.requests;
    expect(row).toMatchObject({ status: 'approved' });
    expect(row!.decided_by).not.toBeNull();
    expect(seen.audit('access_request.approved')).toEqual([expect.objectContaining({ actor: 'owner@acme.test', org_id: acmeId, data: expect.objectContaining({ requestId: row!.id, appId }) })]);
    expect(seen.audit('app.approved')).toEqual([expect.objectContaining({ actor: 'owner@acme.test', data: expect.objectContaining({ appId }) })]);
    expect((await answer(APPROVE, owner, 'acme', row!.id)).ok).toBe(false); // answered already

    // The member's next attempt has Acme to pick, and connects there.
    expect((await consentFor(cursor)).form.orgIds.sort()).toEqual([acmeId, globexId].sort());
    await connect(server.url, cursor, MEMBER, { orgId: acmeId });
    // An approved app cannot be asked for.
    const { browser: later, form: laterForm } = await consentFor(await register(server.url, CURSOR));
    expect(laterForm.html).not.toContain('Ask an admin of Acme');
    expect((await ask(later, laterForm, acmeId, '')).html).toContain('This app cannot be requested there');
    expect(await requests()).toHaveLength(1);
    // The nav shows no count when nothing waits.
    expect(await (await owner.fetch(`${server.url}/admin/acme/clients`)).text()).not.toContain('data-testid="nav-count"');
  }, 180_000);

  it('for someone in Acme only, keeps "cannot be connected" and adds the ask form', async () => {
    const { form } = await consentFor(await register(server.url, { client_name: 'Viewer Tool', redirect_uris: ['https://viewer-tool.example/cb'] }), VIEWER);
    expect(form.orgIds).toEqual([]);
    expect(form.html).toMatch(/<span data-testid="client-name">Viewer Tool<\/span> cannot be connected/);
    expect(form.html).toContain('Ask an admin of Acme');
  }, 180_000);

  it('a decline ends the request and the app stays refused; asking again reopens it; an unanswered request expires through the sweeper', async () => {
    const vscode = await register(server.url, VSCODE);
    const { browser, form } = await consentFor(vscode);
    await ask(browser, form, acmeId, '');
    const id = (await requests()).at(-1)!.id;
    expect(await answer(DECLINE, owner, 'acme', id)).toEqual({ ok: true, value: { declined: 1 } });
    let seen = await snapshot();
    expect(seen.requests.find((row) => row.id === id)).toMatchObject({ status: 'declined', note: null });
    expect(seen.audit('access_request.declined')).toEqual([expect.objectContaining({ actor: 'owner@acme.test', org_id: acmeId, data: expect.objectContaining({ requestId: id }) })]);
    const after = await consentFor(vscode);
    expect(after.form.disabledOrgIds).toEqual([acmeId]);
    expect(after.form.html).toContain('Ask an admin of Acme');
    expect(after.form.html).not.toContain('You asked the admins of Acme');

    // Asked again: the same row, pending again.
    await ask(after.browser, after.form, acmeId, 'Please reconsider');
    // Thirty days pass without an answer: the sweeper (every second here) marks it expired.
    seen = await inspect(async (query) => {
      await query(`UPDATE access_requests SET expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);
      return readSnapshot(query);
    });
    expect(seen.requests.filter((row) => row.id === id)).toEqual([expect.objectContaining({ status: 'pending', note: 'Please reconsider', decided_by: null })]);
    expect(seen.audit('access_request.created').at(-1)).toMatchObject({ data: { requestId: id, reopened: true } });
    let status = '';
    for (let attempt = 0; attempt < 10 && status !== 'expired'; attempt++) {
      await sleep(3_000);
      seen = await snapshot();
      status = seen.requests.find((row) => row.id === id)!.status;
    }
    expect(status).toBe('expired');
    expect(seen.audit('access_request.expired')).toEqual([expect.objectContaining({ actor: null, org_id: acmeId, data: expect.objectContaining({ requestId: id, by: 'sweeper' }) })]);
    expect(await answer(APPROVE, owner, 'acme', id)).toMatchObject({ ok: false, error: 'This request was already answered or has expired.' });
  }, 180_000);

  it("refuses another org's admin, members and viewers: nothing changes", async () => {
    const tool = await register(server.url, { client_name: 'Reports Tool', redirect_uris: ['https://reports-tool.example/cb'] });
    const { browser, form } = await consentFor(tool);
    await ask(browser, form, acmeId, 'for reports');
    const id = (await requests()).find((row) => row.note === 'for reports')!.id;
    const before = await inspect(async (query) => ({
      requests: await query(`SELECT id, status::text, decided_by_id FROM access_requests ORDER BY id`),
      decisions: await query(`SELECT org_id, app_id, decision::text FROM org_app_decisions ORDER BY org_id, app_id`),
    }));
    const member = (await signIn(server.url, MEMBER.email, MEMBER.password)).jar;
    const viewer = (await signIn(server.url, VIEWER.email, VIEWER.password)).jar;
    for (const action of [APPROVE, DECLINE]) {
      // Globex's owner, in her own org: Acme's request is not known there.
      expect(await answer(action, rival, 'globex', id)).toEqual({ ok: false, error: 'This request is not known here.' });
      // …and in Acme she is no one.
      expect((await answer(action, rival, 'acme', id)).ok).toBe(false);
      for (const jar of [member, viewer, null]) expect((await answer(action, jar, 'acme', id)).ok).toBe(false);
    }
    for (const jar of [member, viewer, rival]) expect((await jar.fetch(`${server.url}/admin/acme/clients/requests`)).status).toBe(404);
    expect(
      await inspect(async (query) => ({
        requests: await query(`SELECT id, status::text, decided_by_id FROM access_requests ORDER BY id`),
        decisions: await query(`SELECT org_id, app_id, decision::text FROM org_app_decisions ORDER BY org_id, app_id`),
      })),
    ).toEqual(before);
  }, 180_000);

  it('refuses forged asks (no form token, another person’s token, another site) and hostile notes, storing nothing', async () => {
    const client = await register(server.url, { client_name: 'Forged Tool', redirect_uris: ['https://forged-tool.example/cb'] });
    const { browser, form } = await consentFor(client);
    const viewers = await consentFor(client, VIEWER);
    const before = await requests();
    expect((await ask(browser, form, acmeId, 'x', { csrf: null })).status).toBe(403);
    expect((await ask(browser, form, acmeId, 'x', { csrf: viewers.form.csrf })).status).toBe(403);
    expect((await ask(browser, form, acmeId, 'x', { csrf: 'a'.repeat(form.csrf.length) })).status).toBe(403);
    for (const origin of ['https://evil.example', 'null', `${server.url}.evil.example`]) expect((await ask(browser, form, acmeId, 'x', { origin })).status).toBe(403);
    // The viewer's own token does not work on Max's interaction from the viewer's browser either: it is bound to it.
    expect((await ask(viewers.browser, form, acmeId, 'x', { csrf: viewers.form.csrf })).status).toBe(403);

    const hostile: [string, string][] = [
      ['bad\u0000note', 'must not contain invisible, bidirectional or control characters'],
      ['Trusted\u202Eeton', 'must not contain invisible, bidirectional or control characters'],
      ['zero\u200Bwidth', 'must not contain invisible, bidirectional or control characters'],
      ['x'.repeat(10 * 1024), 'the note is too long (at most 500 characters)'],
    ];
    for (const [note, message] of hostile) {
      const refused = await ask(browser, form, acmeId, note);
      expect(refused.status).toBe(200);
      expect(refused.html, JSON.stringify(note.slice(0, 20))).toContain(message);
      expect(refused.html).not.toContain('Request sent');
    }
    // A body beyond any form's size is refused before it is read as a form.
    expect((await ask(browser, form, acmeId, 'x'.repeat(20 * 1024))).status).toBe(413);
    expect(await requests()).toEqual(before);
  }, 180_000);

  it('refuses asks for an org the person is not in, an open org, or an app blocked there', async () => {
    const client = await register(server.url, { client_name: 'Blocked Tool', redirect_uris: ['https://blocked-tool.example/cb'] });
    const { browser, form } = await consentFor(client);
    const before = await requests();
    expect((await ask(browser, form, initechId, 'let me in')).html).toContain('You are not an active member of that organization.');
    expect((await ask(browser, form, 'no-such-org', '')).html).toContain('You are not an active member of that organization.');
    // Text PostgreSQL cannot store names no organization either (the form fuzzer found it a 500).
    expect((await ask(browser, form, '\u0000', '')).html).toContain('You are not an active member of that organization.');
    expect((await ask(browser, form, globexId, '')).html).toContain('This app cannot be requested there');
    // Asked before a block, a request cannot lift it by being approved.
    expect((await ask(browser, form, acmeId, 'before the block')).html).toContain('Request sent to the admins of Acme');
    const asked = (await requests()).find((row) => row.note === 'before the block')!;
    expect((await callServerAction(server.url, owner, DECIDE, ['acme', { appId: await appIdOf(client), decision: 'blocked' }], '/admin/acme')).result).toMatchObject({ ok: true });
    expect((await ask(browser, form, acmeId, 'again')).html).toContain('This app cannot be requested there');
    // The block answered the request: declined, so it leaves the admins' queue and cannot be approved.
    expect(await answer(APPROVE, owner, 'acme', asked.id)).toEqual({ ok: false, error: 'This request was already answered or has expired.' });
    const seen = await snapshot();
    expect(seen.requests).toEqual([...before, { ...asked, status: 'declined', decided_by: expect.any(String) }]);
    expect(seen.audit('access_request.declined').filter((event) => event.data.requestId === asked.id)).toEqual([
      expect.objectContaining({ actor: 'owner@acme.test', org_id: acmeId, data: expect.objectContaining({ by: 'app_blocked', person: MEMBER.email }) }),
    ]);
    expect((await consentFor(client)).form.disabledOrgIds).toEqual([acmeId]);
  }, 180_000);

  it('answers pending requests when the app is decided elsewhere: approved on the Apps page, blocked everywhere by an instance admin', async () => {
    // Two people ask for the same app in Acme; the owner approves it on the Apps page, not on the Requests page.
    const queued = await register(server.url, { client_name: 'Queue Tool', redirect_uris: ['https://queue-tool.example/cb'] });
    for (const person of [MEMBER, VIEWER]) {
      const { browser, form } = await consentFor(queued, person);
      expect((await ask(browser, form, acmeId, `queued by ${person.email}`)).html).toContain('Request sent to the admins of Acme');
    }
    expect((await callServerAction(server.url, owner, DECIDE, ['acme', { appId: await appIdOf(queued), decision: 'approved' }], '/admin/acme')).result).toEqual({
      ok: true,
      value: { revoked: 0, requestsAnswered: 2 },
    });
    let seen = await snapshot();
    const queuedRows = seen.requests.filter((row) => row.note?.startsWith('queued by'));
    expect(queuedRows.map((row) => [row.person, row.status]).sort()).toEqual([
      [MEMBER.email, 'approved'],
      [VIEWER.email, 'approved'],
    ]);
    expect(seen.audit('access_request.approved').filter((event) => queuedRows.some((row) => row.id === event.data.requestId))).toEqual([
      expect.objectContaining({ actor: 'owner@acme.test', org_id: acmeId, data: expect.objectContaining({ by: 'app_approved' }) }),
      expect.objectContaining({ actor: 'owner@acme.test', org_id: acmeId, data: expect.objectContaining({ by: 'app_approved' }) }),
    ]);
    // Off the admins' queue, listed with the answered ones.
    const [waiting, answered] = visible(await (await owner.fetch(`${server.url}/admin/acme/clients/requests`)).text()).split('aria-label="Decided requests');
    expect(waiting).not.toContain('queued by');
    expect(answered).toContain('queued by member@acme.test');

    // An instance admin's block declines the requests it covers in every org: Max's in Acme for a second
    // app sharing the blocked one's redirect host, Vera's in Umbrella for the blocked app itself. A request
    // for an app the block does not cover stays pending. (Vera joins Umbrella for this: Max's and Bea's
    // asks are counted by the rate limit, tried last.)
    await inspect((query) =>
      query(`INSERT INTO memberships (id, person_id, org_id, role, updated_at) SELECT gen_random_uuid()::text, p.id, $1, 'member', now() FROM people p WHERE p.email = $2`, [initechId, VIEWER.email]),
    );
    const blocked = await register(server.url, { client_name: 'Wide Tool', redirect_uris: ['https://wide-tool.example/cb'] });
    const sharing = await register(server.url, { client_name: 'Wide Tool Copy', redirect_uris: ['https://wide-tool.example/other'] });
    const apart = await register(server.url, { client_name: 'Apart Tool', redirect_uris: ['https://apart-tool.example/cb'] });
    const asks: [RegisteredClient, typeof MEMBER, string][] = [
      [sharing, MEMBER, acmeId],
      [blocked, VIEWER, initechId],
      [apart, VIEWER, acmeId],
    ];
    for (const [client, person, orgId] of asks) {
      const { browser, form } = await consentFor(client, person);
      expect((await ask(browser, form, orgId, `wide ${person.email} ${client.client_id}`)).html).toContain('Request sent to the admins of');
    }
    const everywhere = { file: 'app/admin/instance/actions.ts', name: 'blockAppEverywhereAction' };
    const blockedAppId = await appIdOf(blocked);
    expect((await callServerAction(server.url, owner, everywhere, [{ appId: blockedAppId, blocked: true }], '/admin/instance')).result).toEqual({
      ok: true,
      value: { revoked: 0, requestsAnswered: 2 },
    });
    try {
      seen = await snapshot();
      const status = (client: RegisteredClient) => seen.requests.find((row) => row.note?.endsWith(client.client_id))!.status;
      expect([status(sharing), status(blocked), status(apart)]).toEqual(['declined', 'declined', 'pending']);
      const declined = seen.audit('access_request.declined').filter((event) => event.data.by === 'app_blocked_everywhere');
      expect(declined.map((event) => [event.org_id, event.actor]).sort()).toEqual(
        [
          [acmeId, 'owner@acme.test'],
          [initechId, 'owner@acme.test'],
        ].sort(),
      );
    } finally {
      await callServerAction(server.url, owner, everywhere, [{ appId: blockedAppId, blocked: false }], '/admin/instance');
      await inspect((query) => query(`DELETE FROM memberships WHERE org_id = $1 AND person_id = (SELECT id FROM people WHERE email = $2)`, [initechId, VIEWER.email]));
    }
  }, 180_000);

  it('limits asks per person: past 10 an hour they are refused with a clear message', async () => {
    const client = await register(server.url, { client_name: 'Busy Tool', redirect_uris: ['https://busy-tool.example/cb'] });
    const { browser, form } = await consentFor(client, BUSY);
    for (let attempt = 1; attempt <= 10; attempt++) expect((await ask(browser, form, acmeId, `note ${attempt}`)).html).toContain('Request sent to the admins of Acme');
    const refused = await ask(browser, form, acmeId, 'note 11');
    expect(refused.html).toContain('you have asked too often in the last hour');
    const mine = (await requests()).filter((row) => row.person === BUSY.email);
    expect(mine).toEqual([expect.objectContaining({ status: 'pending', note: 'note 10' })]);
    // The limit is per person: Max may still ask.
    const { browser: max, form: maxForm } = await consentFor(client);
    expect((await ask(max, maxForm, acmeId, '')).html).toContain('Request sent to the admins of Acme');
  }, 180_000);
});

describe('access requests with SMTP configured', () => {
  let server: RunningServer;
  let sink: SMTPServer;
  const received: { to: string[]; text: string }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    sink = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          // Long lines arrive quoted-printable: undo the soft line breaks and escapes.
          const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
          received.push({ to: session.envelope.rcptTo.map((to) => to.address), text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
    server = await startServer({ database: 'embedded', env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Gatehouse <gatehouse@example.test>' } });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => (sink ? sink.close(() => resolve()) : resolve()));
  });

  it("emails the org's admins when a member asks, and the member when it is approved, after the change is committed", async () => {
    const owner = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
    expect((await callServerAction(server.url, owner, POLICY, ['acme', { policy: 'approved' }], '/admin/acme')).result).toMatchObject({ ok: true });
    const client = await register(server.url, { client_name: 'Mail Tool', redirect_uris: ['https://mail-tool.example/cb'] });
    const browser = new Browser(server.url);
    await browser.signIn(MEMBER.email, MEMBER.password);
    const form = await openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
    // Max is in Acme only, so no organization is offered: the ask form names Acme.
    const acmeId = /data-testid="ask-admin" data-org="([^"]+)"/.exec(form.html)![1]!;
    const { response } = await browser.follow(`${server.url}/consent/${form.uid}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ csrf: form.csrf, organization: acmeId, note: 'For the weekly reports' }).toString(),
    });
    expect(visible(await response.text())).toContain('Request sent to the admins of Acme');

    // Owners and admins only: the member and the viewer are not told.
    const toAdmins = received.splice(0);
    expect(toAdmins.flatMap((mail) => mail.to)).toContain('owner@acme.test');
    expect(toAdmins.flatMap((mail) => mail.to)).not.toContain(MEMBER.email);
    expect(toAdmins.flatMap((mail) => mail.to)).not.toContain(VIEWER.email);
    expect(toAdmins[0]!.text).toContain('Subject: An app waits for your approval in Gatehouse');
    expect(toAdmins[0]!.text).toContain('Max Member (member@acme.test) asks the admins of Acme to approve Mail Tool');
    expect(toAdmins[0]!.text).toContain('For the weekly reports');
    expect(toAdmins[0]!.text).toContain(`${server.url}/admin/acme/clients/requests`);
    // Asking again only replaces the note: nobody is emailed twice.
    await browser.follow(`${server.url}/consent/${form.uid}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ csrf: form.csrf, organization: acmeId, note: 'Updated' }).toString(),
    });
    expect(received).toHaveLength(0);

    const requestId = await inspectDatabase(server, async (query) => (await query<{ id: string }>(`SELECT id FROM access_requests`))[0]!.id).then(({ result, server: next }) => {
      server = next;
      return result;
    });
    const approved = await callServerAction(server.url, owner, APPROVE, ['acme', { requestId }], '/admin/acme/clients/requests');
    expect(approved.result).toEqual({ ok: true, value: { approved: 1 } });
    expect(received.map((mail) => mail.to)).toEqual([[MEMBER.email]]);
    expect(received[0]!.text).toContain('Subject: Your access request was approved in Gatehouse');
    expect(received[0]!.text).toContain('Olivia Owner, an admin of Acme, approved Mail Tool. Connect it again from the app');
    expect(received[0]!.text).toContain(`Gatehouse: ${server.url}/`);
    expect(server.output()).not.toContain('could not email');
    received.splice(0);

    // Approved on the Apps page instead of through the request: the requester is told all the same.
    const other = await register(server.url, { client_name: 'Other Mail Tool', redirect_uris: ['https://other-mail-tool.example/cb'] });
    const otherForm = await openConsent(browser, authorizeUrl(server.url, { client: other, challenge: pkce().challenge }));
    await browser.follow(`${server.url}/consent/${otherForm.uid}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ csrf: otherForm.csrf, organization: acmeId, note: '' }).toString(),
    });
    received.splice(0);
    const appId = await inspectDatabase(server, async (query) => (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE client_id = $1`, [other.client_id]))[0]!.app_id).then(
      ({ result, server: next }) => {
        server = next;
        return result;
      },
    );
    expect((await callServerAction(server.url, owner, DECIDE, ['acme', { appId, decision: 'approved' }], '/admin/acme')).result).toMatchObject({ ok: true });
    expect(received.map((mail) => mail.to)).toEqual([[MEMBER.email]]);
    expect(received[0]!.text).toContain('Olivia Owner, an admin of Acme, approved Other Mail Tool.');
    expect(server.output()).not.toContain('could not email');
  }, 180_000);
});
