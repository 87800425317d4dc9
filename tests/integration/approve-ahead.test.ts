// Approving an app ahead of time (docs/protocol.md §7, docs/console.md): under "approved apps only" an app
// nobody in the org connected yet can be approved from the installation's self-registered and
// metadata-document apps — never another org's hand-registered client — or by the URL of its metadata
// document, fetched and checked as when the client presents it. The approval holds when the app's people
// connect later. Documents are served from this machine through the test allowance for loopback origins
// (lib/oauth/cimd.ts); a second document server outside it meets the SSRF protection.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { type DocumentServer, startDocumentServer } from '../helpers/https-server';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { authorizeUrl, Browser, connect, openConsent, pkce, register, type RegisteredClient } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { freePort, startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const GINA = { email: 'gina@globex.test', password: TEST_DEMO_PASSWORD };

const DECIDE = { file: 'app/admin/[org]/clients/actions.ts', name: 'decideAppAction' };
const POLICY = { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction' };
const REGISTER = { file: 'app/admin/[org]/clients/actions.ts', name: 'registerClientAction' };
const BY_URL = { file: 'app/admin/[org]/clients/approve/actions.ts', name: 'approveDocumentAction' };

type Outcome = { ok: boolean; value?: unknown; error?: string };

describe.each(DATABASES)('approving apps ahead of time (%s database)', (database) => {
  let documents: DocumentServer;
  /** Serves documents from an origin outside the test allowance: the SSRF protection applies to it. */
  let outside: DocumentServer;
  /** An allowed origin where nothing listens. */
  let closedOrigin: string;
  let server: RunningServer;
  const jars: Record<'owner' | 'member' | 'viewer' | 'rival', CookieJar> = {} as never;
  let acmeId: string;
  let globexId: string;

  beforeAll(async () => {
    documents = await startDocumentServer();
    outside = await startDocumentServer();
    closedOrigin = `https://127.0.0.1:${await freePort()}`;
    // Both servers' certificates are trusted, so that the outside one is refused for its address, not its certificate.
    const bundle = join(dirname(documents.caBundle), 'both.pem');
    writeFileSync(bundle, `${readFileSync(documents.caBundle, 'utf8')}\n${readFileSync(outside.caBundle, 'utf8')}`);
    server = await startServer({
      database,
      env: {
        GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS: `${documents.origin},${closedOrigin}`,
        GATEHOUSE_TEST_CIMD_ACKNOWLEDGE: 'I understand this disables SSRF protection for loopback origins',
        NODE_EXTRA_CA_CERTS: bundle,
        REGISTRATION_RATE_LIMIT: '1000',
      },
    });
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [
      { email: 'rival@globex.test', name: 'Rita Rival', role: 'owner', password: TEST_DEMO_PASSWORD },
      { ...GINA, name: 'Gina Globex', role: 'member' },
    ]);
    ({ acmeId, globexId } = await inspect(async (query) => ({
      acmeId: (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`))[0]!.id,
      globexId: (await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'globex'`))[0]!.id,
    })));
    for (const [name, email] of [
      ['owner', 'owner@acme.test'],
      ['member', 'member@acme.test'],
      ['viewer', 'viewer@acme.test'],
      ['rival', 'rival@globex.test'],
    ] as const) {
      jars[name] = (await signIn(server.url, email, TEST_DEMO_PASSWORD)).jar;
    }
  });
  afterAll(async () => {
    await server?.stop();
    await documents?.close();
    await outside?.close();
  });

  async function inspect<T>(work: (query: Query) => Promise<T>): Promise<T> {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    return inspected.result;
  }

  const appIdOf = (clientId: string) => inspect(async (query) => (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE client_id = $1`, [clientId]))[0]!.app_id);

  async function action(jar: CookieJar | null, which: { file: string; name: string }, args: unknown[], org = 'acme'): Promise<Outcome> {
    return (await callServerAction(server.url, jar, which, args, `/admin/${org}/clients/approve`)).result as Outcome;
  }

  /** The Approve ahead page as Acme's owner: its HTML, the rows' text and what the page counts. */
  async function listed(query = '', page = 1) {
    const params = new URLSearchParams();
    if (query) params.set('q', query);
    if (page > 1) params.set('page', String(page));
    const response = await jars.owner.fetch(`${server.url}/admin/acme/clients/approve?${params}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    const rows = [...html.matchAll(/<tr[^>]*data-testid="ahead-app"[^>]*>(.*?)<\/tr>/gs)].map((match) =>
      match[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    const summary = /<nav aria-label="Pages"[^>]*>\s*<p>(.*?)<\/p>/s.exec(html)?.[1]?.replace(/<!-- -->/g, '') ?? '';
    return { html, rows, summary };
  }

  async function consentFor(client: RegisteredClient, person = MEMBER) {
    const browser = new Browser(server.url);
    await browser.signIn(person.email, person.password);
    return openConsent(browser, authorizeUrl(server.url, { client, challenge: pkce().challenge }));
  }

  async function approvedOnly<T>(work: () => Promise<T>): Promise<T> {
    expect(await action(jars.owner, POLICY, ['acme', { policy: 'approved' }])).toMatchObject({ ok: true });
    try {
      return await work();
    } finally {
      await action(jars.owner, POLICY, ['acme', { policy: 'open' }]);
    }
  }

  /** What an approval by URL may have stored: document apps and Acme's decisions. */
  const stored = () =>
    inspect(async (query) => ({
      apps: await query(`SELECT key FROM apps WHERE kind = 'metadata_document' ORDER BY key`),
      decisions: await query(`SELECT app_id, decision::text FROM org_app_decisions WHERE org_id = $1 ORDER BY app_id`, [acmeId]),
    }));

  it("lists an app Globex's people registered, with nothing of Globex; once Acme's owner approves it, Acme's members connect it under approved apps only", async () => {
    const product = { client_name: 'Notes Pro', redirect_uris: ['https://notes-pro.example/cb'] };
    const theirs = await register(server.url, product);
    await connect(server.url, theirs, GINA, { orgId: globexId });
    const appId = await appIdOf(theirs.client_id);

    const { html, rows } = await listed('notes pro');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^Notes Pro Self-registered redirects to notes-pro\.example 1 .* Approve Notes Pro$/);
    // Nothing says which organization uses it, nor who.
    expect(html).not.toContain('Globex');
    expect(html).not.toContain('Gina');
    // Searching by the evidence finds it too.
    expect((await listed('NOTES-PRO.EXAMPLE')).rows).toHaveLength(1);

    await approvedOnly(async () => {
      const before = await consentFor(await register(server.url, product));
      expect(before.orgIds).toEqual([]);
      expect(before.html).toContain('This organization allows only apps an admin approved.');

      expect(await action(jars.owner, DECIDE, ['acme', { appId, decision: 'approved' }])).toEqual({ ok: true, value: { revoked: 0, requestsAnswered: 0 } });
      expect((await listed('notes pro')).rows[0]).toMatch(/Approved Clear the decision on Notes Pro$/);

      // A fresh registration of the same product, by Acme's member: the same app, approved.
      const mine = await register(server.url, product);
      expect((await consentFor(mine)).orgIds).toEqual([acmeId]);
      const { tokens } = await connect(server.url, mine, MEMBER, { orgId: acmeId });
      expect((await postMcp(server.url, tokens.access_token, rpc('ping'))).status).toBe(200);
      expect(await appIdOf(mine.client_id)).toBe(appId);
    });
    // Clear takes the approval back.
    expect(await action(jars.owner, DECIDE, ['acme', { appId, decision: 'none' }])).toMatchObject({ ok: true });
    expect((await listed('notes pro')).rows[0]).toMatch(/Approve Notes Pro$/);
  });

  it("never lists Globex's hand-registered client, and refuses a decision on its app from Acme", async () => {
    expect(await action(jars.rival, REGISTER, ['globex', { name: 'Globex Internal', redirectUris: ['https://internal.globex-corp.example/cb'] }], 'globex')).toMatchObject({ ok: true });
    const appId = await inspect(async (query) => (await query<{ app_id: string }>(`SELECT app_id FROM clients WHERE owner_org_id = $1`, [globexId]))[0]!.app_id);
    for (const search of ['Globex Internal', 'internal.globex-corp.example']) {
      const { rows, summary } = await listed(search);
      expect(rows).toEqual([]);
      expect(summary).toMatch(/^0 apps matching/);
    }
    // Unsearched, the page holds nothing of it (the search box above echoed the search).
    const all = await listed();
    expect(all.html).not.toContain('Globex Internal');
    expect(all.html).not.toContain('internal.globex-corp.example');
    expect(await action(jars.owner, DECIDE, ['acme', { appId, decision: 'approved' }])).toEqual({ ok: false, error: 'This app is not known here.' });
    expect(await inspect((query) => query(`SELECT 1 FROM org_app_decisions WHERE org_id = $1 AND app_id = $2`, [acmeId, appId]))).toEqual([]);
  });

  it('searches and pages the apps, most recently seen first', async () => {
    for (let index = 1; index <= 27; index++) {
      await register(server.url, { client_name: `Paging App ${String(index).padStart(2, '0')}`, redirect_uris: [`https://paging-${index}.example/cb`] });
    }
    const first = await listed('paging app');
    expect(first.rows).toHaveLength(25);
    expect(first.rows[0]).toMatch(/^Paging App 27 /);
    expect(first.summary).toBe('27 apps matching “paging app” · page 1 of 2');
    const second = await listed('paging app', 2);
    expect(second.rows.map((row) => row.slice(0, 'Paging App 00'.length))).toEqual(['Paging App 02', 'Paging App 01']);
    // A page past the last shows the last.
    expect((await listed('paging app', 99)).summary).toBe('27 apps matching “paging app” · page 2 of 2');
    expect((await listed('paging-13.example')).rows).toEqual([expect.stringMatching(/^Paging App 13 /)]);
    const none = await listed('nothing-is-called-this');
    expect(none.rows).toEqual([]);
    expect(none.html).toContain('No app matches “nothing-is-called-this”.');
  });

  /** A valid document at `path` on the allowed document server; returns its URL. */
  function serve(path: string, fields: Record<string, unknown> = {}): string {
    const url = `${documents.origin}${path}`;
    documents.documents.set(path, {
      client_id: url,
      client_name: 'Ahead Doc App',
      redirect_uris: ['https://ahead-doc.example/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...fields,
    });
    return url;
  }

  it('approves a metadata-document app by its URL; the client connecting later with that client_id is the app approved', async () => {
    const url = serve('/apps/ahead.json');
    const approved = await action(jars.owner, BY_URL, ['acme', { url }]);
    expect(approved).toEqual({ ok: true, value: { appId: expect.any(String), name: 'Ahead Doc App' } });
    const appId = (approved.value as { appId: string }).appId;
    expect(
      await inspect(async (query) => ({
        app: await query(`SELECT key, kind, display_name, registration_count, marks FROM apps WHERE id = $1`, [appId]),
        decision: await query(`SELECT decision::text FROM org_app_decisions WHERE org_id = $1 AND app_id = $2`, [acmeId, appId]),
        audit: await query(`SELECT data->>'app' AS app FROM audit_events WHERE type = 'app.approved' AND org_id = $1 AND data->>'appId' = $2`, [acmeId, appId]),
      })),
    ).toEqual({
      app: [{ key: `document:${url}`, kind: 'metadata_document', display_name: 'Ahead Doc App', registration_count: 0, marks: [`host:${new URL(url).host}`] }],
      decision: [{ decision: 'approved' }],
      audit: [{ app: 'Ahead Doc App' }],
    });
    // Listed for Acme, which decided on it; not for anyone else's eyes before someone registers it.
    expect((await listed('ahead doc')).rows).toEqual([expect.stringMatching(/^Ahead Doc App Metadata document metadata document .*ahead\.json 0 .*Approved/)]);

    await approvedOnly(async () => {
      const client = { client_id: url, redirect_uris: ['https://ahead-doc.example/callback'], registration_access_token: '', registration_client_uri: '' };
      expect((await consentFor(client)).orgIds).toEqual([acmeId]);
      const { tokens } = await connect(server.url, client, MEMBER, { orgId: acmeId });
      expect((await postMcp(server.url, tokens.access_token, rpc('ping'))).status).toBe(200);
    });
    expect(await inspect((query) => query(`SELECT c.app_id, a.registration_count FROM clients c JOIN apps a ON a.id = c.app_id WHERE c.client_id = $1`, [url]))).toEqual([
      { app_id: appId, registration_count: 1 },
    ]);
    // Approving it again changes nothing and says so as before.
    expect(await action(jars.owner, BY_URL, ['acme', { url }])).toEqual({ ok: true, value: { appId, name: 'Ahead Doc App' } });
  });

  it.each([
    ['text that is no URL', () => 'not a url', 'This is not a metadata document URL: it is not a URL.'],
    ['an http: URL', () => `http://127.0.0.1:${documents.port}/apps/plain.json`, 'This is not a metadata document URL: it must start with https://.'],
    ['a URL with a fragment', () => `${documents.origin}/apps/a.json#x`, 'This is not a metadata document URL: it must not have a fragment (#…).'],
    ['a URL with a user name', () => `https://user@127.0.0.1:${documents.port}/apps/a.json`, 'This is not a metadata document URL: it must not carry a user name or password.'],
    ['a URL with a dot segment', () => `${documents.origin}/apps/../a.json`, 'This is not a metadata document URL: it must not contain . or .. path segments.'],
    [
      'a document whose client_id is another URL',
      () => serve('/apps/liar.json', { client_id: `${documents.origin}/apps/other.json` }) && `${documents.origin}/apps/liar.json`,
      'The metadata document is not accepted: client_id metadata document client_id does not match the expected value.',
    ],
    [
      'a document declaring a redirect URI registration refuses',
      () => serve('/apps/shady.json', { application_type: 'native', redirect_uris: ['myapp://oauth/callback'] }),
      /^The metadata document is not accepted: the client's metadata document declares a redirect URI that is not accepted: /,
    ],
    ['a document that is not there', () => `${documents.origin}/apps/missing.json`, 'The metadata document could not be fetched: the server answered HTTP 404.'],
    ['a server that is not there', () => `${closedOrigin}/apps/a.json`, /^The metadata document could not be fetched: .*ECONNREFUSED/],
    ['a document over 5 KiB', () => serve('/apps/large.json', { client_uri: `https://ahead-doc.example/${'x'.repeat(6000)}` }), 'The metadata document is too large (at most 5 KiB).'],
    [
      'a document on a loopback address outside the test allowance',
      () => {
        outside.documents.set('/apps/outside.json', { client_id: `${outside.origin}/apps/outside.json`, client_name: 'Outside', redirect_uris: ['https://outside.example/cb'] });
        return `${outside.origin}/apps/outside.json`;
      },
      'The metadata document URL points to a private or loopback address, which Gatehouse never fetches from.',
    ],
    [
      'a document server slower than 2.5 s',
      () => {
        const url = serve('/apps/too-slow.json');
        documents.delays.set('/apps/too-slow.json', 4_000);
        return url;
      },
      'The metadata document took too long to fetch (more than 2.5 seconds).',
    ],
  ] as [string, () => string, string | RegExp][])('refuses %s with a clear error and stores nothing', async (_what, url, error) => {
    const before = await stored();
    const outcome = await action(jars.owner, BY_URL, ['acme', { url: url() }]);
    expect(outcome.ok).toBe(false);
    if (typeof error === 'string') expect(outcome.error).toBe(error);
    else expect(outcome.error).toMatch(error);
    expect(await stored()).toEqual(before);
    expect(outside.requests).toEqual([]);
  });

  it('refuses a document whose app a block in the org covers (one on the same host), and leaves no app behind', async () => {
    const host = new URL(documents.origin).host;
    const first = await action(jars.owner, BY_URL, ['acme', { url: serve('/apps/blocked-first.json', { client_name: 'Blocked First' }) }]);
    const blockedId = (first.value as { appId: string }).appId;
    expect(await action(jars.owner, DECIDE, ['acme', { appId: blockedId, decision: 'blocked' }])).toMatchObject({ ok: true });
    try {
      const before = await stored();
      const url = serve('/apps/covered.json', { client_name: 'Covered Doc' });
      expect(await action(jars.owner, BY_URL, ['acme', { url }])).toEqual({
        ok: false,
        error: `Covered Doc cannot be approved: it shares ${host} with Blocked First, which this organization blocked. Unblock Blocked First first.`,
      });
      expect(await stored()).toEqual(before);
    } finally {
      await action(jars.owner, DECIDE, ['acme', { appId: blockedId, decision: 'none' }]);
    }
  });

  it('holds no database connection while the document is fetched', async () => {
    const url = serve('/apps/slow.json', { client_name: 'Slow Doc App' });
    documents.delays.set('/apps/slow.json', 2_000);
    const approving = action(jars.owner, BY_URL, ['acme', { url }]);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the action is waiting on the document server now
    const started = Date.now();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(Date.now() - started, 'the database answered /readyz at once').toBeLessThan(1_000);
    expect(await approving).toMatchObject({ ok: true, value: { name: 'Slow Doc App' } });
  });

  it('refuses both actions and the page to members, viewers and admins of another org, and changes nothing', async () => {
    const someone = await register(server.url, { client_name: 'Forged Target', redirect_uris: ['https://forged-target.example/cb'] });
    const appId = await appIdOf(someone.client_id);
    const url = serve('/apps/forged.json', { client_name: 'Forged Doc' });
    const before = await stored();
    for (const [who, jar] of [
      ['nobody', null],
      ['a member', jars.member],
      ['a viewer', jars.viewer],
      ["another org's owner", jars.rival],
    ] as const) {
      expect(await action(jar, BY_URL, ['acme', { url }]), `by URL as ${who}`).toMatchObject({ ok: false });
      expect(await action(jar, DECIDE, ['acme', { appId, decision: 'approved' }]), `decide as ${who}`).toMatchObject({ ok: false });
      if (jar) expect((await jar.fetch(`${server.url}/admin/acme/clients/approve`)).status, `page as ${who}`).toBe(404);
    }
    const anonymous = await fetch(`${server.url}/admin/acme/clients/approve`, { redirect: 'manual' });
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get('location')).toContain(`/login?callbackUrl=${encodeURIComponent('/admin/acme/clients/approve')}`);
    expect(await stored()).toEqual(before);
    expect(documents.requests.some((request) => request.endsWith(' /apps/forged.json'))).toBe(false);
    // Malformed input is refused before anything is fetched.
    for (const input of [{ url: '' }, { url: 42 }, { url: `https://x.example/${'a'.repeat(2001)}` }, { address: url }, null]) {
      expect(await action(jars.owner, BY_URL, ['acme', input]), JSON.stringify(input)).toMatchObject({ ok: false });
    }
    expect(await stored()).toEqual(before);
  });
});
