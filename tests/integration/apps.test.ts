// Apps (docs/protocol.md §3): the registrations several people make of one product, through the real
// /oauth/register, form one app each — never one app across two redirect hosts; an RFC 7592 rename moves a
// registration to the app its new name makes; clients registered before apps existed get theirs at
// start-up; and the org console's grouped view shows an organization only its own registrations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { connect, register, type RegisteredClient } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/session';
import { registrationBody } from '../helpers/registration-fixtures';

const CLAUDE = registrationBody('Claude (claude.ai');
const CHATGPT = registrationBody('ChatGPT');
const CURSOR = registrationBody('Cursor (desktop');
const VSCODE = registrationBody('VS Code');
const CODEX = registrationBody('Codex');
const PROXY = registrationBody('Claude Desktop - local');

const MEMBER = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
const OWNER = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };
const RIVAL = { email: 'rival@globex.test', name: 'Rita Rival', role: 'owner' as const, password: TEST_DEMO_PASSWORD };

type AppRow = { id: string; key: string; kind: string; display_name: string; marks: string[]; registration_count: number; clients: string[] };

async function apps(query: Query): Promise<AppRow[]> {
  return query<AppRow>(
    `SELECT a.id, a.key, a.kind, a.display_name, a.marks, a.registration_count,
            coalesce(array_agg(c.client_id ORDER BY c.client_id) FILTER (WHERE c.client_id IS NOT NULL), '{}') AS clients
     FROM apps a LEFT JOIN clients c ON c.app_id = a.id GROUP BY a.id ORDER BY a.key`,
  );
}

/** The redirect hosts and private-use schemes of a stored registration, as marks. */
function marksOf(uris: string[]): string[] {
  const marks = new Set<string>();
  for (const uri of uris) {
    const url = new URL(uri);
    if (url.protocol === 'https:' || url.protocol === 'http:') {
      if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) marks.add(`host:${url.host}`);
    } else marks.add(`scheme:${url.protocol.slice(0, -1)}`);
  }
  return [...marks].sort();
}

async function registerTimes(url: string, registration: Record<string, unknown>, times: number): Promise<RegisteredClient[]> {
  const made: RegisteredClient[] = [];
  for (let index = 0; index < times; index++) made.push(await register(url, registration));
  return made;
}

describe.each(DATABASES)('apps on the %s database', (kind) => {
  let server: RunningServer;
  const made: Record<string, RegisteredClient[]> = {};

  beforeAll(async () => {
    server = await startServer({ database: kind, env: { REGISTRATION_RATE_LIMIT: '1000' } });
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [RIVAL]);
    made.claude = [...(await registerTimes(server.url, CLAUDE, 3)), ...(await Promise.all([register(server.url, CLAUDE), register(server.url, CLAUDE)]))];
    made.chatgpt = await registerTimes(server.url, CHATGPT, 4);
    made.cursor = await registerTimes(server.url, CURSOR, 3);
    made.vscode = await registerTimes(server.url, VSCODE, 2);
    made.codex = await registerTimes(server.url, CODEX, 2);
    // Copies that borrow a product's name (and software_id) but send their responses elsewhere.
    made.fakeClaude = [await register(server.url, { ...CLAUDE, redirect_uris: ['https://claude.ai.evil.example/api/mcp/auth_callback'] })];
    made.proxy = [await register(server.url, { ...PROXY, redirect_uris: ['https://mcp-cli.example/cb'] })];
    made.fakeProxy = [await register(server.url, { ...PROXY, redirect_uris: ['https://evil.example/cb'] })];
  }, 180_000);
  afterAll(async () => server?.stop());

  it('groups the registrations of each product into one app, counted, and never across redirect hosts', async () => {
    const { result, server: next } = await inspectDatabase(server, async (query) => ({
      apps: await apps(query),
      unassigned: await query<{ n: number }>(`SELECT count(*)::int AS n FROM clients WHERE app_id IS NULL`),
      stored: await query<{ id: string; payload: { redirect_uris: string[] } }>(`SELECT id, payload FROM oidc_models WHERE model = 'Client'`),
    }));
    server = next;
    expect(result.unassigned[0]!.n).toBe(0);
    const appOf = (client: RegisteredClient) => result.apps.find((app) => app.clients.includes(client.client_id))!;
    const expected: [string, string, string[], number][] = [
      ['claude', 'Claude', ['host:claude.ai'], 5],
      ['chatgpt', 'ChatGPT', ['host:chatgpt.com'], 4],
      ['cursor', 'Cursor', ['host:www.cursor.com', 'scheme:cursor'], 3],
      ['vscode', 'Visual Studio Code', ['host:insiders.vscode.dev', 'host:vscode.dev'], 2],
      ['codex', 'Codex', [], 2],
      ['fakeClaude', 'Claude', ['host:claude.ai.evil.example'], 1],
      ['proxy', 'MCP CLI Proxy', ['host:mcp-cli.example'], 1],
      ['fakeProxy', 'MCP CLI Proxy', ['host:evil.example'], 1],
    ];
    for (const [product, name, marks, count] of expected) {
      const app = appOf(made[product]![0]!);
      expect(app, product).toBeDefined();
      expect({ name: app.display_name, marks: app.marks, count: app.registration_count, clients: app.clients }, product).toEqual({
        name,
        marks,
        count,
        clients: made[product]!.map((client) => client.client_id).sort(),
      });
    }
    expect(new Set(expected.map(([product]) => appOf(made[product]![0]!).id)).size).toBe(expected.length);
    expect(appOf(made.codex![0]!).kind).toBe('loopback');
    // No app holds two registrations with different redirect hosts or schemes.
    const uris = new Map(result.stored.map((row) => [row.id, row.payload.redirect_uris]));
    for (const app of result.apps) {
      const sets = new Set(app.clients.map((clientId) => JSON.stringify(marksOf(uris.get(clientId) ?? []))));
      expect(sets.size, app.key).toBeLessThanOrEqual(1);
      if (app.kind === 'redirects') expect([...sets][0], app.key).toBe(JSON.stringify(app.marks));
    }
  });

  it('moves a registration renamed through RFC 7592 to the app of its new name, and recounts both (and on deletion)', async () => {
    const renamed = made.chatgpt![3]!;
    const response = await fetch(renamed.registration_client_uri, {
      method: 'PUT',
      headers: { authorization: `Bearer ${renamed.registration_access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...CHATGPT, client_id: renamed.client_id, client_name: 'ChatGPT Beta' }),
    });
    expect(response.status).toBe(200);
    const gone = made.codex!.pop()!;
    const deleted = await fetch(gone.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${gone.registration_access_token}` } });
    expect(deleted.status).toBe(204);
    const { result, server: next } = await inspectDatabase(server, apps);
    server = next;
    const chatgpt = result.find((app) => app.clients.includes(made.chatgpt![0]!.client_id))!;
    const beta = result.find((app) => app.clients.includes(renamed.client_id))!;
    expect(beta.id).not.toBe(chatgpt.id);
    expect({ name: beta.display_name, marks: beta.marks, count: beta.registration_count }).toEqual({ name: 'ChatGPT Beta', marks: ['host:chatgpt.com'], count: 1 });
    expect(chatgpt.registration_count).toBe(3);
    const codex = result.find((app) => app.clients.includes(made.codex![0]!.client_id))!;
    expect({ count: codex.registration_count, clients: codex.clients }).toEqual({ count: 1, clients: [made.codex![0]!.client_id] });
  });

  it("shows an org's registrations under their apps, and only the org's own", async () => {
    const acmeClaude = made.claude![0]!;
    const globexClaude = made.claude![1]!;
    const secret = await register(server.url, { client_name: 'Globex Secret Tool', redirect_uris: ['https://secret.globex.example/cb'] });
    const hostile = await register(server.url, { client_name: '<img src=x onerror=alert(1)> Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] });
    await connect(server.url, acmeClaude, MEMBER);
    await connect(server.url, hostile, MEMBER);
    await connect(server.url, globexClaude, RIVAL);
    await connect(server.url, secret, RIVAL);

    const { jar } = await signIn(server.url, OWNER.email, OWNER.password);
    const page = await jar.fetch(`${server.url}/admin/acme/clients`);
    expect(page.status).toBe(200);
    const html = (await page.text()).replaceAll('<!-- -->', '');
    // Claude's app, with Acme's one registration of it: not the five the installation has.
    expect(html).toMatch(/>Claude<\/span>.{0,400}1 registration</s);
    expect(html).toContain('App grouped by: redirects to claude.ai');
    expect(html).toContain(acmeClaude.client_id);
    // The hostile name is its own app (another name), shown as text.
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; Claude');
    for (const foreign of [globexClaude.client_id, secret.client_id, 'Globex Secret Tool', 'secret.globex.example', ...made.claude!.slice(1).map((client) => client.client_id)]) {
      expect(html).not.toContain(foreign);
    }
    expect(html).not.toMatch(/[2-9] registrations/);
    // Another org's clients page stays closed to Acme's owner.
    expect((await jar.fetch(`${server.url}/admin/globex/clients`)).status).toBe(404);
  });

  it('gives clients registered before apps existed their apps at start-up', async () => {
    const { server: halted } = await inspectDatabase(server, async (query) => {
      // As the database was before apps: no app rows, no client pointing to one, and a metadata-document
      // client (Gatehouse keeps no metadata for those) and one with no stored metadata at all.
      await query(`UPDATE clients SET app_id = NULL`);
      await query(`DELETE FROM apps`);
      await query(`INSERT INTO clients (client_id, registration, name, hostname) VALUES ('https://docs.example/client.json', 'metadata_document', 'Doc App', 'docs.example')`);
      await query(`INSERT INTO clients (client_id, registration, name) VALUES ('no-metadata', 'dynamic', 'Lonely Tool')`);
    });
    server = halted;
    if (server.postgres) {
      await server.halt();
      server = await startServer(server.restartOptions);
    }
    expect(server.output()).toMatch(/client registration\(s\) grouped into apps/);
    const { result, server: next } = await inspectDatabase(server, async (query) => ({
      apps: await apps(query),
      unassigned: await query<{ n: number }>(`SELECT count(*)::int AS n FROM clients WHERE app_id IS NULL`),
    }));
    server = next;
    expect(result.unassigned[0]!.n).toBe(0);
    const appOf = (clientId: string) => result.apps.find((app) => app.clients.includes(clientId))!;
    expect(appOf(made.claude![0]!.client_id)).toMatchObject({ display_name: 'Claude', marks: ['host:claude.ai'], registration_count: 5 });
    expect(appOf(made.cursor![0]!.client_id)).toMatchObject({ marks: ['host:www.cursor.com', 'scheme:cursor'], registration_count: 3 });
    expect(appOf(made.chatgpt![0]!.client_id).registration_count).toBe(3);
    expect(appOf(made.chatgpt![3]!.client_id)).toMatchObject({ display_name: 'ChatGPT Beta', registration_count: 1 });
    expect(appOf('https://docs.example/client.json')).toMatchObject({ key: 'document:https://docs.example/client.json', kind: 'metadata_document', display_name: 'Doc App' });
    expect(appOf('no-metadata')).toMatchObject({ kind: 'loopback', display_name: 'Lonely Tool', registration_count: 1 });
    // Every registration is counted once, in one app.
    expect(result.apps.reduce((sum, app) => sum + app.registration_count, 0)).toBe(result.apps.reduce((sum, app) => sum + app.clients.length, 0));
  });
});
