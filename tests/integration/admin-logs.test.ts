// The console's Overview, audit log and call log (docs/protocol.md §7): real /mcp calls with real tokens are counted
// on the Overview by app and by outcome; the logs filter, page and export only the admin's org, as CSV
// (RFC 4180, formula-guarded) and JSON Lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvObjects, parseCsv, parseJsonLines } from '../helpers/csv';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

const person = (email: string) => ({ email, password: TEST_DEMO_PASSWORD });
const EVIL_NAME = '=HYPERLINK("https://evil.example","click"), "quoted"';
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

describe.each(DATABASES)('Overview, audit log and call log on the %s database', (kind) => {
  let server: RunningServer;
  let owner: CookieJar;
  let gina: CookieJar;
  let gammaClientId: string;
  let evilClientId: string;

  beforeAll(async () => {
    server = await startServer({ database: kind });
    // A second organization, Globex, whose owner Gina has nothing to do with Acme (same password as the demo).
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid()::text, 'globex', 'Globex', now())`);
      await query(
        `INSERT INTO people (id, email, name, password_hash, updated_at)
         SELECT gen_random_uuid()::text, 'gina@globex.test', 'Gina Globex', password_hash, now() FROM people WHERE email = 'owner@acme.test'`,
      );
      await query(
        `INSERT INTO memberships (id, person_id, org_id, role, updated_at)
         SELECT gen_random_uuid()::text, p.id, o.id, 'owner', now() FROM people p, organizations o WHERE p.email = 'gina@globex.test' AND o.slug = 'globex'`,
      );
    }));
    const { url } = server;
    const alpha = await register(url, { client_name: 'Alpha App', redirect_uris: ['https://alpha.example/cb'] });
    const evil = await register(url, { client_name: EVIL_NAME, redirect_uris: ['https://evil.example/cb'] });
    const gamma = await register(url, { client_name: 'Gamma App', redirect_uris: ['https://gamma.example/cb'] });
    evilClientId = evil.client_id;
    gammaClientId = gamma.client_id;
    const ownerAlpha = (await connect(url, alpha, person('owner@acme.test'))).tokens;
    const memberEvil = (await connect(url, evil, person('member@acme.test'), { scopes: ['mcp:read'] })).tokens;
    const viewerAlpha = (await connect(url, alpha, person('viewer@acme.test'))).tokens;
    const ownerGamma = (await connect(url, gamma, person('owner@acme.test'), { scopes: ['mcp:write'] })).tokens;
    const ginaAlpha = (await connect(url, alpha, person('gina@globex.test'))).tokens;

    const call = (tokens: Tokens, body: unknown) => postMcp(url, tokens.access_token, body);
    // Olivia through Alpha: 120 served calls, then one over the budget.
    expect((await call(ownerAlpha, rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } }))).status).toBe(200);
    expect((await call(ownerAlpha, rpc('tools/call', { name: 'whoami', arguments: {} }))).body!.result.isError).toBe(false);
    for (let batch = 0; batch < 6; batch++) {
      const size = batch < 5 ? 20 : 18;
      const replies = await Promise.all(Array.from({ length: size }, () => call(ownerAlpha, rpc('ping'))));
      expect(replies.map((reply) => reply.status)).toEqual(Array(size).fill(200));
    }
    expect((await call(ownerAlpha, rpc('ping'))).status).toBe(429);
    // Max through the app with a formula for a name, mcp:read only: a scope refusal, two pings, a made-up method.
    expect((await call(memberEvil, rpc('tools/call', { name: 'revoke_connected_app', arguments: { grantId: 'x' } }))).body!.result.isError).toBe(true);
    expect((await call(memberEvil, rpc('ping'))).status).toBe(200);
    expect((await call(memberEvil, rpc('ping'))).status).toBe(200);
    expect((await call(memberEvil, rpc('=1+1'))).body!.error.code).toBe(-32601);
    // Vera cannot run tools; Olivia's mcp:write-only connection cannot read resources (403 step-up).
    expect((await call(viewerAlpha, rpc('tools/call', { name: 'whoami', arguments: {} }))).body!.result.isError).toBe(true);
    expect((await call(ownerGamma, rpc('resources/read', { uri: 'gatehouse://organization/profile' }))).status).toBe(403);
    // Globex's call, and one without a valid token (no org at all).
    expect((await call(ginaAlpha, rpc('ping'))).status).toBe(200);
    expect((await postMcp(url, 'mcp_at_not-a-token', rpc('ping'))).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the call log is flushed within a second

    owner = (await signIn(url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
    gina = (await signIn(url, 'gina@globex.test', TEST_DEMO_PASSWORD)).jar;
  });
  afterAll(async () => server?.stop());

  const page = async (jar: CookieJar, path: string) => {
    const response = await jar.fetch(`${server.url}${path}`);
    return { status: response.status, html: (await response.text()).replaceAll('<!-- -->', '') };
  };
  const download = async (jar: CookieJar, path: string) => {
    const response = await jar.fetch(`${server.url}${path}`);
    return { response, text: await response.text() };
  };
  const callsExport = async (query = '') => {
    const { response, text } = await download(owner, `/admin/acme/calls/export?format=jsonl${query}`);
    expect(response.status, text).toBe(200);
    return parseJsonLines(text);
  };

  it('counts the calls made through /mcp on the Overview, by outcome and by app, for this org only', async () => {
    const { status, html } = await page(owner, '/admin/acme');
    expect(status).toBe(200);
    expect(html).toContain('<title>Overview · Admin');
    expect(rowOf(html, 'Calls per day by outcome (numbers)', today())).toEqual({
      OK: 122,
      'Refused: scope': 1,
      'Refused: role or restriction': 1,
      'Rate-limited': 1,
      '401 Unauthorized': 0,
      '403 Forbidden': 1,
      'Connector failures': 0,
      'Other errors': 1,
      Total: 127,
    });
    // Gina's call through Alpha App is Globex's, not Acme's.
    expect(rowOf(html, 'Calls per day by app (numbers)', today())).toEqual({ 'Alpha App': 122, [EVIL_NAME]: 4, 'Gamma App': 1, Total: 127 });
    expect(html).toMatch(/\/mcp calls, 30 days<\/dt><dd[^>]*>(<a[^>]*>)?<span[^>]*>127</);
    expect(html).toMatch(/Active connections<\/dt><dd[^>]*>(<a[^>]*>)?<span[^>]*>4</);
    expect(html).toMatch(/New apps, 30 days<\/dt><dd[^>]*>(<a[^>]*>)?<span[^>]*>3</);
    expect(html).toContain('Latest security events');
    expect(html).not.toContain('Gina Globex');

    const globex = await page(gina, '/admin/globex');
    expect(rowOf(globex.html, 'Calls per day by outcome (numbers)', today())).toMatchObject({ OK: 1, Total: 1 });
  });

  it('filters the call log by outcome, method, tool, person, app and days', async () => {
    const all = await callsExport();
    expect(all).toHaveLength(127);
    const ids = all.map((row) => BigInt(row.id as string));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(new Set(all.map((row) => row.personEmail))).toEqual(new Set(['owner@acme.test', 'member@acme.test', 'viewer@acme.test']));

    const scope = await callsExport('&outcome=refused_scope');
    expect(scope).toMatchObject([{ toolName: 'revoke_connected_app', personName: 'Max Member', clientName: EVIL_NAME, outcome: 'refused_scope', httpStatus: 200 }]);
    expect(await callsExport('&outcome=refused_role')).toMatchObject([{ toolName: 'whoami', personEmail: 'viewer@acme.test', outcome: 'refused_role' }]);
    expect(await callsExport('&outcome=rate_limited')).toMatchObject([{ httpStatus: 429, outcomeCategory: 'rate_limited', clientName: 'Alpha App' }]);
    expect(await callsExport('&outcome=forbidden')).toMatchObject([{ method: 'resources/read', httpStatus: 403, clientName: 'Gamma App' }]);
    expect(await callsExport('&outcome=other')).toMatchObject([{ method: '=1+1', outcomeCategory: 'other' }]);
    expect(await callsExport('&outcome=unauthorized')).toEqual([]);
    expect(await callsExport('&outcome=ok')).toHaveLength(122);
    expect(await callsExport('&method=ping')).toHaveLength(120);
    expect((await callsExport('&tool=whoami')).map((row) => row.outcome).sort()).toEqual(['ok', 'refused_role']);

    const maxId = scope[0]!.personId as string;
    const max = await callsExport(`&person=${maxId}`);
    expect(max).toHaveLength(4);
    expect(max.every((row) => row.personEmail === 'member@acme.test')).toBe(true);
    expect(await callsExport(`&client=${encodeURIComponent(gammaClientId)}`)).toHaveLength(1);
    expect(await callsExport(`&person=${maxId}&method=ping`)).toHaveLength(2);
    expect(await callsExport(`&from=${today()}&to=${today()}`)).toHaveLength(127);
    expect(await callsExport(`&from=${daysAgo(10)}&to=${daysAgo(1)}`)).toEqual([]);

    // The page shows the same filter, and keeps it in its export links.
    const filtered = await page(owner, `/admin/acme/calls?outcome=refused_scope&person=${maxId}`);
    expect(detailIds(filtered.html, 'calls')).toEqual([scope[0]!.id]);
    expect(filtered.html).toContain(`/admin/acme/calls/export?outcome=refused_scope&amp;person=${maxId}&amp;format=csv`);
    expect(filtered.html).toContain(`/admin/acme/calls/export?outcome=refused_scope&amp;person=${maxId}&amp;format=jsonl`);
  });

  it('pages the call log 50 at a time with Older and Newer links, and opens a call', async () => {
    const all = (await callsExport()).map((row) => row.id as string);
    const seen: string[] = [];
    const pages: string[][] = [];
    let path: string | null = '/admin/acme/calls';
    while (path) {
      const { html } = await page(owner, path);
      pages.push(detailIds(html, 'calls'));
      seen.push(...pages.at(-1)!);
      const older = /href="(\?[^"]*before=\d+)"[^>]*>Older/.exec(html)?.[1];
      path = older ? `/admin/acme/calls${older.replaceAll('&amp;', '&')}` : null;
    }
    expect(pages.map((ids) => ids.length)).toEqual([50, 50, 27]);
    expect(seen).toEqual(all);

    const second = await page(owner, `/admin/acme/calls?before=${pages[0]!.at(-1)}`);
    const newer = /href="(\?[^"]*after=\d+)"[^>]*>← Newer/.exec(second.html)?.[1];
    expect(newer).toBeDefined();
    expect(detailIds((await page(owner, `/admin/acme/calls${newer!.replaceAll('&amp;', '&')}`)).html, 'calls')).toEqual(pages[0]);
    expect((await page(owner, '/admin/acme/calls')).html).not.toContain('Newer');

    const [refusal] = await callsExport('&outcome=refused_scope');
    const detail = await page(owner, `/admin/acme/calls/${refusal!.id}`);
    expect(detail.status).toBe(200);
    expect(detail.html).toContain('<title>Call · Admin');
    for (const text of ['revoke_connected_app', 'Max Member', 'member@acme.test', 'Refused: scope', evilClientId]) expect(detail.html).toContain(text);
  });

  it('filters the audit log by type, person, app and days, with a detail view', async () => {
    const { response, text } = await download(owner, '/admin/acme/audit/export?format=jsonl&type=consent.granted');
    expect(response.status).toBe(200);
    const consents = parseJsonLines(text);
    expect(consents).toHaveLength(4);
    expect(new Set(consents.map((event) => event.type))).toEqual(new Set(['consent.granted']));

    const listed = await page(owner, '/admin/acme/audit?type=consent.granted');
    expect(listed.html).toContain('<title>Audit log · Admin');
    expect(detailIds(listed.html, 'audit')).toEqual(consents.map((event) => event.id));

    const maxId = consents.find((event) => event.actorEmail === 'member@acme.test')!.actorPersonId as string;
    const maxEvents = parseJsonLines((await download(owner, `/admin/acme/audit/export?format=jsonl&person=${maxId}`)).text);
    expect(new Set(maxEvents.map((event) => event.type))).toEqual(new Set(['consent.granted', 'token.issued']));
    const gammaEvents = parseJsonLines((await download(owner, `/admin/acme/audit/export?format=jsonl&client=${encodeURIComponent(gammaClientId)}`)).text);
    expect(gammaEvents.map((event) => event.clientName)).toEqual(['Gamma App', 'Gamma App']);
    expect(parseJsonLines((await download(owner, `/admin/acme/audit/export?format=jsonl&to=${daysAgo(1)}`)).text)).toEqual([]);

    const consent = consents.find((event) => event.clientId === gammaClientId)!;
    const detail = await page(owner, `/admin/acme/audit/${consent.id}?type=consent.granted`);
    expect(detail.status).toBe(200);
    expect(detail.html).toContain('<title>Audit event · Admin');
    for (const text of ['consent.granted', 'Olivia Owner', 'Gamma App', consent.grantId as string, '&quot;mcp:write&quot;']) expect(detail.html).toContain(text);
    expect(detail.html).toContain('href="/admin/acme/audit?type=consent.granted"');
  });

  it('exports CSV by RFC 4180, with formula-looking cells made text', async () => {
    const { response, text } = await download(owner, `/admin/acme/audit/export?format=csv&client=${encodeURIComponent(evilClientId)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="acme-audit-${today()}.csv"`);
    expect(text).toContain('\r\n');
    expect(text).toContain(`"'=HYPERLINK(""https://evil.example"",""click""), ""quoted"""`);
    const [header] = parseCsv(text);
    expect(header).toEqual(['id', 'at', 'type', 'actorPersonId', 'actorName', 'actorEmail', 'clientId', 'clientName', 'grantId', 'ip', 'data']);
    const rows = csvObjects(text);
    expect(rows.map((row) => row.type).sort()).toEqual(['consent.granted', 'token.issued']);
    for (const row of rows) {
      expect(row.clientName).toBe(`'${EVIL_NAME}`);
      expect(row.actorName).toBe('Max Member');
    }
    expect(JSON.parse(rows.find((row) => row.type === 'consent.granted')!.data!)).toMatchObject({ scopes: ['mcp:read'] });

    const calls = await download(owner, '/admin/acme/calls/export?format=csv&outcome=other');
    expect(calls.response.headers.get('content-disposition')).toBe(`attachment; filename="acme-calls-${today()}.csv"`);
    expect(csvObjects(calls.text)).toMatchObject([{ method: `'=1+1`, clientName: `'${EVIL_NAME}`, outcomeCategory: 'other' }]);
  });

  it('exports JSON Lines that parse line by line', async () => {
    const { response, text } = await download(owner, '/admin/acme/audit/export?format=jsonl');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="acme-audit-${today()}.jsonl"`);
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(event)).toEqual(['id', 'at', 'type', 'actorPersonId', 'actorName', 'actorEmail', 'clientId', 'clientName', 'grantId', 'ip', 'data']);
      expect(typeof event.data).toBe('object');
    }
    expect(lines.length).toBeGreaterThanOrEqual(8); // 4 consents and their 4 token issues, at least
  });

  it('answers bad filters with 400 and the reason, on the export and on the page', async () => {
    const cases: [string, RegExp][] = [
      ['format=xml', /format=csv or format=jsonl/],
      ['format=csv&from=2026-02-30', /"From" must be a date/],
      ['format=csv&from=2026-05-02&to=2026-05-01', /"From" must be on or before "To"/],
      ['format=csv&from=2024-01-01&to=2026-01-01', /at most 366 days/],
      ['format=csv&outcome=bogus', /outcome is not one of/],
      ['format=csv&before=abc', /page cursor/],
    ];
    for (const [query, reason] of cases) {
      const { response, text } = await download(owner, `/admin/acme/calls/export?${query}`);
      expect(response.status, query).toBe(400);
      expect(JSON.parse(text).message).toMatch(reason);
    }
    const shown = await page(owner, '/admin/acme/audit?from=2026-05-02&to=2026-05-01');
    expect(shown.status).toBe(200);
    expect(shown.html).toMatch(/role="alert"[^>]*>&quot;From&quot; must be on or before &quot;To&quot;/);
  });

  it('shows and exports only the admin’s org: other orgs’ ids are not found, other people are refused', async () => {
    const globexCalls = parseJsonLines((await download(gina, '/admin/globex/calls/export?format=jsonl')).text);
    expect(globexCalls).toMatchObject([{ personEmail: 'gina@globex.test', clientName: 'Alpha App', method: 'ping' }]);
    const globexEvents = parseJsonLines((await download(gina, '/admin/globex/audit/export?format=jsonl')).text);
    expect(globexEvents.length).toBeGreaterThan(0);
    expect(globexEvents.every((event) => event.actorEmail === 'gina@globex.test')).toBe(true);

    // Acme's exports hold none of them; their ids are unknown in Acme's console.
    const acmeCalls = await callsExport();
    expect(acmeCalls.some((row) => row.id === globexCalls[0]!.id)).toBe(false);
    const acmeEvents = parseJsonLines((await download(owner, '/admin/acme/audit/export?format=jsonl')).text);
    expect(acmeEvents.some((event) => globexEvents.some((other) => other.id === event.id))).toBe(false);
    for (const path of [`/admin/acme/calls/${globexCalls[0]!.id}`, `/admin/acme/audit/${globexEvents[0]!.id}`, '/admin/acme/audit/999999999', '/admin/acme/audit/not-a-number']) {
      // The page streams inside the console's loading boundary, so Next answers 200 with its 404 page.
      const shown = await page(owner, path);
      expect(shown.html, path).toContain('This page could not be found.');
      expect(shown.html, path).toMatch(/<meta name="robots" content="noindex"/);
      expect(shown.html, path).not.toMatch(/<h1[^>]*>(Event|Call) /);
      expect(shown.html, path).not.toContain('gina@globex.test');
    }

    // Gina (owner of Globex) may not export Acme; Max and Vera have no audit:read; Olivia is only a member of Initech.
    const refused: [CookieJar | null, string, number][] = [
      [gina, '/admin/acme/audit/export?format=csv', 403],
      [gina, '/admin/acme/calls/export?format=jsonl', 403],
      [(await signIn(server.url, 'member@acme.test', TEST_DEMO_PASSWORD)).jar, '/admin/acme/audit/export?format=csv', 403],
      [(await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).jar, '/admin/acme/calls/export?format=csv', 403],
      [owner, '/admin/initech/audit/export?format=csv', 403],
      [owner, '/admin/no-such-org/audit/export?format=csv', 403],
      [null, '/admin/acme/audit/export?format=csv', 401],
      [null, '/admin/acme/calls/export?format=jsonl', 401],
    ];
    for (const [jar, path, status] of refused) {
      const response = jar ? await jar.fetch(`${server.url}${path}`) : await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-disposition')).toBeNull();
    }
    expect((await page(gina, `/admin/acme/audit/${acmeEvents[0]!.id}`)).status).toBe(404);
  });
});

/** The detail links of a log page, in order. */
function detailIds(html: string, log: 'audit' | 'calls'): string[] {
  return [...html.matchAll(new RegExp(`href="/admin/[a-z0-9-]+/${log}/(\\d+)[?"]`, 'g'))].map((match) => match[1]!);
}

/** One row of a chart's number table, keyed by column heading. */
function rowOf(html: string, tableLabel: string, day: string): Record<string, number> {
  const table = new RegExp(`<table[^>]*aria-label="${escapeHtml(tableLabel).replace(/[()]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</table>`).exec(html)?.[1];
  if (!table) throw new Error(`no table "${tableLabel}"`);
  const headings = [...table.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((match) => unescapeHtml(match[1]!)).slice(1);
  const row = new RegExp(`<tr><th scope="row"[^>]*>${day}</th>([\\s\\S]*?)</tr>`).exec(table)?.[1];
  if (!row) throw new Error(`no row for ${day} in "${tableLabel}"`);
  const cells = [...row.matchAll(/<td[^>]*>(\d+)<\/td>/g)].map((match) => Number(match[1]));
  return Object.fromEntries(headings.map((heading, index) => [heading, cells[index]!]));
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function unescapeHtml(text: string): string {
  return text.replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
