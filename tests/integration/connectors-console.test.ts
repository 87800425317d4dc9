// The org console's connectors (docs/connectors.md, Who may switch it on): an org admin sees only the
// connectors an instance admin offered to their org and switches those on or off; each tool of a connector
// that is on gets its switch on the Tools tab. Driven through the real server action endpoint against real
// SDK upstreams added with the command line, with the effect read on /mcp tools/list and tools/call, and
// forged as an attacker would: another org's slug (IDOR), a connector not offered, people without the
// permission, unknown and hostile slugs and tool names. Withdrawing an offer switches the connector off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { addOrg } from '../helpers/console';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, type Tokens } from '../helpers/oauth';
import { callServerAction } from '../helpers/server-actions';
import { type RunningServer, startServer, TEST_DEMO_PASSWORD } from '../helpers/server';
import { type CookieJar, signIn } from '../helpers/session';
import { echoTool, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

const CLI = 'lib/cli/connectors.ts';
const SWITCH = { file: 'app/admin/[org]/connectors/actions.ts', name: 'setConnectorEnabledAction' };
const RESTRICT = { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction' };
const UNEXPECTED = 'Something went wrong. Nothing was changed; please try again.';
const FORBIDDEN = 'You do not have permission to do this here.';
/** Each command line run is a process of its own, and on the embedded database a server restart too. */
const COMMANDS_TIMEOUT = 240_000;

const notOffered = (slug: string) => `There is no connector "${slug}" offered to this organization.`;

describe.each(DATABASES)('connectors in the org console (%s database)', { timeout: 120_000 }, (database) => {
  let server: RunningServer;
  const upstreams: RunningUpstream[] = [];
  let notes: RunningUpstream;
  const jars = {} as Record<'owner' | 'admin' | 'member' | 'viewer' | 'rival' | 'hooli', CookieJar>;
  let member: Tokens;
  let rivalMember: Tokens;

  /** The command line as an instance admin runs it; on the embedded database the server is stopped meanwhile. */
  async function cli(...args: string[]): Promise<void> {
    if (database === 'embedded') await server.halt();
    try {
      const result = await runCli(CLI, args, server.env);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
    } finally {
      if (database === 'embedded') server = await startServer(server.restartOptions);
    }
  }

  async function inspect<T>(work: (query: Query) => Promise<T>): Promise<T> {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    return inspected.result;
  }

  /** Everything these actions can change, as one comparable value. */
  const state = () =>
    inspect(async (query) => ({
      on: await query(`SELECT o.slug AS org, c.slug FROM org_connectors oc JOIN organizations o ON o.id = oc.org_id JOIN connectors c ON c.id = oc.connector_id ORDER BY 1, 2`),
      restrictions: await query(`SELECT o.slug AS org, r.tool_name FROM tool_restrictions r JOIN organizations o ON o.id = r.org_id ORDER BY 1, 2`),
      events: await query(`SELECT count(*)::int AS n FROM audit_events WHERE type LIKE 'connector.%' OR type LIKE 'tool.%'`),
    }));

  const switchConnector = (jar: CookieJar | null, org: unknown, input: unknown) => callServerAction(server.url, jar, SWITCH, [org, input], '/admin/acme/connectors');
  const restrict = (jar: CookieJar, org: string, input: unknown) => callServerAction(server.url, jar, RESTRICT, [org, input], `/admin/${org}/tools`);

  /** The page's HTML (with the payload the page hydrates from), without the markers React puts between adjacent texts. */
  async function page(jar: CookieJar, path: string): Promise<string> {
    const response = await jar.fetch(`${server.url}${path}`);
    expect(response.status, path).toBe(200);
    return (await response.text()).replaceAll('<!-- -->', '');
  }

  /** Every tool name tools/list gives the connection. */
  async function listed(tokens: Tokens): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const reply = await postMcp(server.url, tokens.access_token, rpc('tools/list', cursor ? { cursor } : undefined));
      expect(reply.status, reply.text).toBe(200);
      names.push(...(reply.body!.result.tools as { name: string }[]).map((tool) => tool.name));
      cursor = reply.body!.result.nextCursor;
      if (!cursor) break;
    }
    return names;
  }

  const call = (tokens: Tokens, name: string, args: Record<string, unknown> = {}) => postMcp(server.url, tokens.access_token, rpc('tools/call', { name, arguments: args }));

  beforeAll(async () => {
    notes = await startUpstream({
      stateful: false,
      tools: [echoTool('search', { title: 'Search notes', description: 'Search the notes.', annotations: { readOnlyHint: true } }), echoTool('write_note', { description: 'Write a note.' })],
    });
    const wiki = await startUpstream({ stateful: false, tools: [echoTool('wiki_page', { description: 'A page of the Globex wiki.' })] });
    const shared = await startUpstream({ stateful: false, tools: [echoTool('ping', { annotations: { readOnlyHint: true } })] });
    const vault = await startUpstream({ stateful: false, tools: [echoTool('vault_secret', { description: 'Reads the vault.' })] });
    upstreams.push(notes, wiki, shared, vault);

    server = await startServer({ database, env: { CONNECTOR_REFRESH_SECONDS: '86400' } });
    server = await addOrg(server, { slug: 'globex', name: 'Globex' }, [
      { email: 'rival@globex.test', name: 'Rita Rival', role: 'owner', password: TEST_DEMO_PASSWORD },
      { email: 'gina@globex.test', name: 'Gina Globex', role: 'member', password: TEST_DEMO_PASSWORD },
    ]);
    server = await addOrg(server, { slug: 'hooli', name: 'Hooli' }, [{ email: 'ines@hooli.test', name: 'Ines Hooli', role: 'owner', password: TEST_DEMO_PASSWORD }]);
    server = await addOrg(server, { slug: 'acme-partners', name: 'Acme Partners' }, [{ email: 'admin@acme.test', name: 'Adam Admin', role: 'member', password: TEST_DEMO_PASSWORD }]);
    await inspect((query) =>
      query(
        `INSERT INTO memberships (id, person_id, org_id, role, updated_at)
         SELECT gen_random_uuid()::text, p.id, o.id, 'admin', now() FROM people p, organizations o WHERE p.email = 'admin@acme.test' AND o.slug = 'acme'`,
      ),
    );

    // Added by an instance admin, on for nobody; Notes offered to Acme, the wiki to Globex (and on there), the vault to nobody.
    if (database === 'embedded') await server.halt();
    for (const args of [
      ['add', 'notes', notes.url, '--name', 'Notes', '--description', 'The team notes.'],
      ['add', 'globex-wiki', wiki.url, '--name', 'Globex Wiki'],
      ['add', 'shared', shared.url, '--name', 'Shared Ping'],
      ['add', 'vault', vault.url, '--name', 'Secret Vault'],
      ['offer', 'notes', '--orgs', 'acme'],
      ['enable', 'globex-wiki', '--org', 'globex'],
    ]) {
      const result = await runCli(CLI, args, server.env);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
    }
    if (database === 'embedded') server = await startServer(server.restartOptions);

    for (const [name, email] of [
      ['owner', 'owner@acme.test'],
      ['admin', 'admin@acme.test'],
      ['member', 'member@acme.test'],
      ['viewer', 'viewer@acme.test'],
      ['rival', 'rival@globex.test'],
      ['hooli', 'ines@hooli.test'],
    ] as const) {
      jars[name] = (await signIn(server.url, email, TEST_DEMO_PASSWORD)).jar;
    }
    const client = await register(server.url, { client_name: 'Console connectors client', redirect_uris: ['https://console-connectors.example/cb'] });
    member = (await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD })).tokens;
    rivalMember = (await connect(server.url, client, { email: 'gina@globex.test', password: TEST_DEMO_PASSWORD })).tokens;
  }, COMMANDS_TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    for (const upstream of upstreams) await upstream.stop();
  });

  it('lists to each org only the connectors offered to it, and an empty state where none is', async () => {
    const acme = await page(jars.owner, '/admin/acme/connectors');
    expect(acme).toContain('Notes');
    expect(acme).toContain('The team notes.');
    expect(acme).toContain('notes__search');
    expect(acme).toContain('notes__write_note');
    // Nothing of a connector not offered: not its slug, name, tools or description, not even how many there are.
    for (const leak of ['globex-wiki', 'Globex Wiki', 'wiki_page', 'vault', 'Secret Vault', 'Shared Ping', 'shared__ping']) expect(acme, leak).not.toContain(leak);
    expect(acme.match(/aria-label="Tools of /g)).toHaveLength(1);

    const globex = await page(jars.rival, '/admin/globex/connectors');
    expect(globex).toContain('Globex Wiki');
    expect(globex).toContain('globex-wiki__wiki_page');
    for (const leak of ['notes__', 'The team notes.', 'vault', 'Shared Ping']) expect(globex, leak).not.toContain(leak);

    const hooli = await page(jars.hooli, '/admin/hooli/connectors');
    expect(hooli).toContain('No connector is offered to Hooli yet.');
    expect(hooli).toContain('offered to organizations by an instance admin');
    for (const leak of ['notes', 'globex-wiki', 'vault', 'shared']) expect(hooli, leak).not.toContain(`${leak}__`);

    // The Tools tab of an org shows the tools of connectors switched on for it, and no others.
    const acmeTools = await page(jars.owner, '/admin/acme/tools');
    expect(acmeTools).toContain('whoami');
    expect(acmeTools).not.toContain('notes__search'); // offered, but off
    expect(acmeTools).not.toContain('globex-wiki__');
    const globexTools = await page(jars.rival, '/admin/globex/tools');
    expect(globexTools).toContain('globex-wiki__wiki_page');
    expect(globexTools).not.toContain('notes__');
  });

  it(
    'lists a connector offered to every organization in each of them',
    async () => {
      await cli('offer', 'shared', '--all');
      for (const [jar, org] of [
        [jars.owner, 'acme'],
        [jars.rival, 'globex'],
        [jars.hooli, 'hooli'],
      ] as const) {
        const html = await page(jar, `/admin/${org}/connectors`);
        expect(html, org).toContain('Shared Ping');
        expect(html, org).toContain('shared__ping');
        expect(html, org).not.toContain('Secret Vault');
      }
    },
    COMMANDS_TIMEOUT,
  );

  it('switches a connector on and off through the server action: its tools join and leave /mcp at once, audited with the admin', async () => {
    expect((await listed(member)).filter((name) => name.startsWith('notes__'))).toEqual([]);

    const on = await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: true });
    expect(on.result).toEqual({ ok: true, value: true });
    expect((await listed(member)).filter((name) => name.startsWith('notes__'))).toEqual(['notes__search', 'notes__write_note']);
    const answer = await call(member, 'notes__search', { text: 'hello' });
    expect(answer.body!.result.content, answer.text).toEqual([{ type: 'text', text: JSON.stringify({ text: 'hello' }) }]);
    // Again: nothing changes, nothing more is recorded.
    expect((await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: true })).result).toEqual({ ok: true, value: false });
    // Globex's people never see Acme's connector.
    expect((await listed(rivalMember)).filter((name) => name.startsWith('notes__'))).toEqual([]);

    // An admin (not owner) has the permission too.
    const off = await switchConnector(jars.admin, 'acme', { slug: 'notes', enabled: false });
    expect(off.result).toEqual({ ok: true, value: true });
    expect((await listed(member)).filter((name) => name.startsWith('notes__'))).toEqual([]);
    const before = notes.calls('search').length;
    const refused = await call(member, 'notes__search', { text: 'off' });
    expect(refused.body!.error?.code, refused.text).toBe(-32602);
    expect(notes.calls('search').length).toBe(before);

    expect((await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: true })).result).toEqual({ ok: true, value: true });
    const events = await inspect((query) =>
      query<{ type: string; actor: string; org: string; data: Record<string, unknown> }>(
        `SELECT a.type, p.email AS actor, o.slug AS org, a.data FROM audit_events a JOIN people p ON p.id = a.actor_person_id JOIN organizations o ON o.id = a.org_id
          WHERE a.type IN ('connector.enabled', 'connector.disabled') ORDER BY a.id`,
      ),
    );
    expect(events).toEqual([
      { type: 'connector.enabled', actor: 'owner@acme.test', org: 'acme', data: { slug: 'notes', org: 'acme', via: 'console' } },
      { type: 'connector.disabled', actor: 'admin@acme.test', org: 'acme', data: { slug: 'notes', org: 'acme', via: 'console' } },
      { type: 'connector.enabled', actor: 'owner@acme.test', org: 'acme', data: { slug: 'notes', org: 'acme', via: 'console' } },
    ]);
  });

  it('refuses forged switches: another org’s connector (IDOR), one not offered, people without the permission, unknown and hostile slugs', async () => {
    const before = await state();
    // Acme's owner (an instance admin too) acting in Globex, where they are nobody: refused whatever the slug.
    for (const slug of ['globex-wiki', 'notes', 'vault']) {
      for (const enabled of [true, false]) expect((await switchConnector(jars.owner, 'globex', { slug, enabled })).result).toEqual({ ok: false, error: FORBIDDEN });
    }
    // Globex's owner acting in Acme likewise.
    expect((await switchConnector(jars.rival, 'acme', { slug: 'notes', enabled: false })).result).toEqual({ ok: false, error: FORBIDDEN });
    // In their own org, another org's connector, one offered to nobody and one that does not exist get one
    // and the same answer: nothing tells them apart.
    for (const slug of ['globex-wiki', 'vault', 'no-such-connector']) {
      for (const enabled of [true, false]) expect((await switchConnector(jars.owner, 'acme', { slug, enabled })).result, slug).toEqual({ ok: false, error: notOffered(slug) });
    }
    // Members, viewers and the signed out.
    for (const who of [jars.member, jars.viewer, null]) {
      const answer = await switchConnector(who, 'acme', { slug: 'notes', enabled: false });
      expect(answer.result).toMatchObject({ ok: false });
    }
    // Hostile slugs and input: refused in words, never the catch-all failure.
    const hostile: unknown[][] = [
      ['acme', { slug: 'n'.repeat(100_000), enabled: false }],
      ['acme', { slug: 'notes\u0000', enabled: false }],
      ['acme', { slug: '\ud800', enabled: true }],
      ['acme', { slug: 'nötes', enabled: true }],
      ['acme', { slug: 'notes\u202e', enabled: false }],
      ['acme', { slug: 'NOTES', enabled: false }],
      ['acme', { slug: 'notes ', enabled: false }],
      ['acme', { slug: '../notes', enabled: false }],
      ['acme', { slug: 'notes__search', enabled: false }],
      ['acme', { slug: '', enabled: true }],
      ['acme', { slug: ['notes'], enabled: false }],
      ['acme', { slug: 'notes', enabled: 'false' }],
      ['acme', { slug: 'notes' }],
      ['acme', null],
      ['acme\u0000', { slug: 'notes', enabled: false }],
      ['a'.repeat(100_000), { slug: 'notes', enabled: false }],
      [{ slug: 'acme' }, { slug: 'notes', enabled: false }],
    ];
    for (const [org, input] of hostile) {
      const answer = await switchConnector(jars.owner, org, input);
      const where = JSON.stringify([org, input]).slice(0, 120);
      expect(answer.result, where).toMatchObject({ ok: false, error: expect.any(String) });
      expect((answer.result as { error: string }).error, where).not.toBe(UNEXPECTED);
    }
    expect(await state()).toEqual(before);
  });

  it('switches a connector tool off on the Tools tab: gone from tools/list, its call refused with the upstream untouched; only this org’s switched-on tools are accepted', async () => {
    const tools = await page(jars.owner, '/admin/acme/tools');
    expect(tools).toContain('notes__search');
    expect(tools).toContain('notes__write_note');
    expect(tools).toContain('href="/admin/acme/connectors"');

    expect((await restrict(jars.owner, 'acme', { tool: 'notes__search', restricted: true })).result).toMatchObject({ ok: true });
    expect(await listed(member)).not.toContain('notes__search');
    expect(await listed(member)).toContain('notes__write_note');
    const before = notes.calls('search').length;
    for (const attempt of [() => call(member, 'notes__search', { text: 'x' }), () => call(member, 'execute_tool', { name: 'notes__search', arguments: { text: 'x' } })]) {
      const refused = await attempt();
      expect(refused.body!.result.isError, refused.text).toBe(true);
      expect(refused.body!.result.content[0].text).toMatch(/turned off for Acme/);
    }
    expect(notes.calls('search').length).toBe(before);
    const { restriction } = await inspect(async (query) => ({
      restriction: await query(`SELECT a.data, p.email FROM audit_events a JOIN people p ON p.id = a.actor_person_id WHERE a.type = 'tool.restricted'`),
    }));
    expect(restriction).toEqual([{ data: { tool: 'notes__search' }, email: 'owner@acme.test' }]);
    // The page says so too.
    expect(await page(jars.owner, '/admin/acme/connectors')).toContain('Off on the Tools tab');

    // A restriction outlives switching the connector off and on: the tool stays off.
    expect((await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: false })).result).toMatchObject({ ok: true });
    expect((await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: true })).result).toMatchObject({ ok: true });
    expect(await listed(member)).not.toContain('notes__search');

    // Forged names: another org's connector tool (on in Globex), a tool of a connector merely offered
    // (shared is offered to all, on for nobody), of one offered to nobody, made up, hostile.
    const stateBefore = await state();
    for (const tool of ['globex-wiki__wiki_page', 'shared__ping', 'vault__vault_secret', 'notes__no_such_tool', 'notes__search\u0000', 'notes__SEARCH', 'notes__search ', 'x'.repeat(100_000), '__']) {
      for (const restricted of [true, false]) {
        const answer = await restrict(jars.owner, 'acme', { tool, restricted });
        expect(answer.result, tool.slice(0, 40)).toMatchObject({ ok: false, error: expect.any(String) });
        expect((answer.result as { error: string }).error).not.toBe(UNEXPECTED);
      }
    }
    expect((await restrict(jars.owner, 'acme', { tool: 'globex-wiki__wiki_page', restricted: true })).result).toEqual({ ok: false, error: 'There is no tool named "globex-wiki__wiki_page".' });
    // Globex's people still get the wiki tool; Globex's owner cannot switch Acme's.
    expect(await listed(rivalMember)).toContain('globex-wiki__wiki_page');
    expect((await restrict(jars.rival, 'globex', { tool: 'notes__write_note', restricted: true })).result).toEqual({ ok: false, error: 'There is no tool named "notes__write_note".' });
    expect(await state()).toEqual(stateBefore);

    expect((await restrict(jars.owner, 'acme', { tool: 'notes__search', restricted: false })).result).toMatchObject({ ok: true });
    expect(await listed(member)).toContain('notes__search');
  });

  it(
    'switches a connector off in an org whose offer is withdrawn, and refuses switching it on there again',
    async () => {
      expect(await listed(member)).toContain('notes__search');
      await cli('offer', 'notes', '--orgs', 'globex');
      expect((await listed(member)).filter((name) => name.startsWith('notes__'))).toEqual([]);
      const acme = await page(jars.owner, '/admin/acme/connectors');
      expect(acme).not.toContain('notes__search');
      expect(acme).not.toContain('The team notes.');
      expect((await switchConnector(jars.owner, 'acme', { slug: 'notes', enabled: true })).result).toEqual({ ok: false, error: notOffered('notes') });
      expect((await restrict(jars.owner, 'acme', { tool: 'notes__write_note', restricted: true })).result).toEqual({ ok: false, error: 'There is no tool named "notes__write_note".' });
      const rows = await inspect(async (query) => ({
        on: await query(`SELECT 1 FROM org_connectors oc JOIN organizations o ON o.id = oc.org_id JOIN connectors c ON c.id = oc.connector_id WHERE o.slug = 'acme' AND c.slug = 'notes'`),
        event: await query<{ data: unknown }>(
          `SELECT a.data FROM audit_events a JOIN organizations o ON o.id = a.org_id WHERE a.type = 'connector.disabled' AND o.slug = 'acme' ORDER BY a.id DESC LIMIT 1`,
        ),
      }));
      expect(rows.on).toEqual([]);
      expect(rows.event).toEqual([{ data: { slug: 'notes', org: 'acme', reason: 'no longer offered', via: 'cli' } }]);
      // Now offered to Globex instead: its owner may switch it on there.
      expect((await switchConnector(jars.rival, 'globex', { slug: 'notes', enabled: true })).result).toEqual({ ok: true, value: true });
      expect(await listed(rivalMember)).toContain('notes__search');
    },
    COMMANDS_TIMEOUT,
  );
});
