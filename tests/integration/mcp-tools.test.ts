// docs/protocol.md §6 behaviour: tools, resources and prompts with their gates, in-band refusals, execute_tool as a
// mere indirection, the per-grant rate limit, the call log, and changes that take effect on the next call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase } from '../helpers/inspect';
import { postMcp, rpc, rpc2026 } from '../helpers/mcp';
import { connect, register, tokenRequest, type RegisteredClient, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const person = (email: string) => ({ email, password: TEST_DEMO_PASSWORD });

describe.each(DATABASES)('MCP tools on the %s database', (kind) => {
  let server: RunningServer;
  let client: RegisteredClient;
  let member: Tokens;
  let memberRead: Tokens;
  let memberWrite: Tokens;
  let viewer: Tokens;
  let owner: Tokens;

  beforeAll(async () => {
    server = await startServer({ database: kind });
    client = await register(server.url, { client_name: 'Tools Test', redirect_uris: ['https://tools.example/cb'] });
    const other = await register(server.url, { client_name: 'Other Tools Test', redirect_uris: ['https://tools2.example/cb'] });
    member = (await connect(server.url, client, person('member@acme.test'))).tokens;
    memberRead = (await connect(server.url, other, person('member@acme.test'), { scopes: ['mcp:read'] })).tokens;
    const third = await register(server.url, { client_name: 'Write Only', redirect_uris: ['https://tools3.example/cb'] });
    memberWrite = (await connect(server.url, third, person('member@acme.test'), { scopes: ['mcp:write'] })).tokens;
    viewer = (await connect(server.url, client, person('viewer@acme.test'))).tokens;
    owner = (await connect(server.url, client, person('owner@acme.test'))).tokens;
  });
  afterAll(async () => server?.stop());

  const call = (tokens: Tokens, name: string, args: Record<string, unknown> = {}) => postMcp(server.url, tokens.access_token, rpc('tools/call', { name, arguments: args }));
  const textOf = (reply: { body: Record<string, any> | null }) => String(reply.body?.result?.content?.[0]?.text ?? '');

  it('lists the tools in a fixed order with JSON Schema 2020-12 inputs, annotations and output schemas', async () => {
    const reply = await postMcp(server.url, member.access_token, rpc('tools/list'));
    expect(reply.status).toBe(200);
    const tools = reply.body!.result.tools as Record<string, any>[];
    expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'list_connected_apps', 'revoke_connected_app', 'list_members', 'read_audit_log', 'execute_tool']);
    for (const tool of tools) {
      expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.annotations).toEqual(expect.any(Object));
    }
    expect(tools.find((tool) => tool.name === 'whoami')!.outputSchema.type).toBe('object');
    expect(tools.find((tool) => tool.name === 'revoke_connected_app')!.annotations.destructiveHint).toBe(true);
  });

  it('whoami tells who the connection acts as, with structured content', async () => {
    const reply = await call(member, 'whoami');
    expect(reply.status).toBe(200);
    expect(reply.body!.result.isError).toBe(false);
    expect(reply.body!.result.structuredContent).toMatchObject({
      person: { email: 'member@acme.test' },
      organization: { name: 'Acme' },
      role: 'member',
      client: { name: 'Tools Test' },
      scopes: ['mcp:read', 'mcp:write'],
    });
    expect(new Date(reply.body!.result.structuredContent.tokenExpiresAt).getTime()).toBeGreaterThan(Date.now());
  });

  it('refuses a tool whose scope was not granted in band, with the insufficient_scope challenge', async () => {
    const reply = await call(memberRead, 'revoke_connected_app', { grant_id: 'x' });
    expect(reply.status).toBe(200);
    expect(reply.body!.result.isError).toBe(true);
    expect(reply.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource", scope="mcp:write", error="insufficient_scope"`);
    const text = textOf(reply);
    expect(text).toContain('Make changes on your behalf');
    expect(text).toContain('This connection holds: mcp:read');
    expect(text).toMatch(/reconnect/);
  });

  it('says when the role is the problem, naming role and org, and that reconnecting will not help', async () => {
    const reply = await call(viewer, 'whoami');
    expect(reply.status).toBe(200);
    expect(reply.body!.result.isError).toBe(true);
    expect(reply.headers.get('www-authenticate')).toBeNull();
    expect(textOf(reply)).toMatch(/role in Acme is "viewer".*role problem.*will not help/s);
    const audit = await call(member, 'read_audit_log');
    expect(textOf(audit)).toMatch(/role in Acme is "member".*audit:read/s);
  });

  it('reports invalid arguments in band and unknown tools as -32602', async () => {
    const invalid = await call(owner, 'read_audit_log', { limit: 0 });
    expect(invalid.body!.result.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/arguments for "read_audit_log" are invalid: limit/);
    const unknown = await call(owner, 'no_such_tool');
    expect(unknown.body!.error.code).toBe(-32602);
  });

  // The argument check is the tools' one gate for input: what the database cannot hold (NUL, broken
  // Unicode) or reach (a cursor past bigint, a date outside what PostgreSQL stores) is the caller's
  // mistake, answered in band as invalid_arguments — never tool_error, never a stack trace.
  it.each([
    ['read_audit_log', { cursor: '99999999999999999999' }, /cursor/],
    ['read_audit_log', { cursor: '9223372036854775808' }, /cursor/],
    ['read_audit_log', { since: '0000-01-01T00:00:00Z' }, /since/],
    ['read_audit_log', { since: '+275760-09-13T00:00:00Z' }, /since/],
    ['read_audit_log', { type: 'grant.revoked\u0000' }, /cannot be stored|NUL/],
    ['read_audit_log', { type: '\ud800' }, /cannot be stored|NUL/],
    ['revoke_connected_app', { grant_id: '\u0000' }, /cannot be stored|NUL/],
    ['revoke_connected_app', { grant_id: 'x\u0000y' }, /cannot be stored|NUL/],
    ['list_members', { '\u0000': 1 }, /cannot be stored|NUL/],
    ['execute_tool', { name: 'read_audit_log', arguments: { cursor: '99999999999999999999' } }, /cursor/],
  ] as const)('refuses %s with %j as invalid arguments, in band, without a stack trace', async (tool, args, problem) => {
    const reply = await call(owner, tool, args);
    expect(reply.status).toBe(200);
    expect(reply.body!.result.isError).toBe(true);
    const text = textOf(reply);
    expect(text).toMatch(/^The arguments for "\w+" are invalid: /);
    expect(text).toMatch(problem);
    expect(reply.text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|Prisma|failed unexpectedly/);
  });

  it('still pages the audit log with the largest cursor a bigint holds (the control for the refusals above)', async () => {
    const reply = await call(owner, 'read_audit_log', { cursor: '9223372036854775807', since: '1970-01-01T00:00:00Z', limit: 1 });
    expect(reply.body!.result.isError).toBe(false);
    expect(reply.body!.result.structuredContent.events).toHaveLength(1);
  });

  it('execute_tool meets exactly the gates of a direct call and grants nothing extra', async () => {
    const direct = await call(memberRead, 'revoke_connected_app', { grant_id: 'x' });
    const wrapped = await call(memberRead, 'execute_tool', { name: 'revoke_connected_app', arguments: { grant_id: 'x' } });
    expect(wrapped.body!.result).toEqual(direct.body!.result);
    expect(wrapped.headers.get('www-authenticate')).toBe(direct.headers.get('www-authenticate'));
    expect(textOf(await call(member, 'execute_tool', { name: 'read_audit_log' }))).toEqual(textOf(await call(member, 'read_audit_log')));
    expect(textOf(await call(viewer, 'execute_tool', { name: 'whoami' }))).toMatch(/role problem/);
    const ok = await call(member, 'execute_tool', { name: 'whoami', arguments: {} });
    expect(ok.body!.result.structuredContent.person.email).toBe('member@acme.test');
    expect(textOf(await call(member, 'execute_tool', { name: 'execute_tool', arguments: { name: 'whoami' } }))).toMatch(/cannot run itself/);
    expect(textOf(await call(member, 'execute_tool', { name: 'nope' }))).toMatch(/no tool named "nope"/);
  });

  it('reads the audit log with filters and paging for a role that may', async () => {
    const first = await call(owner, 'read_audit_log', { type: 'consent.granted', limit: 1 });
    const page = first.body!.result.structuredContent;
    expect(page.events).toHaveLength(1);
    expect(page.events[0].type).toBe('consent.granted');
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = await call(owner, 'read_audit_log', { type: 'consent.granted', limit: 1, cursor: page.nextCursor });
    expect(second.body!.result.structuredContent.events[0].id).not.toBe(page.events[0].id);
  });

  it('lists connected apps: one’s own, or everyone’s with apps:manage; lists members', async () => {
    const mine = (await call(member, 'list_connected_apps')).body!.result.structuredContent;
    expect(mine.scope).toBe('mine');
    expect(new Set(mine.apps.map((app: any) => app.person.email))).toEqual(new Set(['member@acme.test']));
    const all = (await call(owner, 'list_connected_apps')).body!.result.structuredContent;
    expect(all.scope).toBe('organization');
    expect(new Set(all.apps.map((app: any) => app.person.email))).toEqual(new Set(['member@acme.test', 'viewer@acme.test', 'owner@acme.test']));
    const members = (await call(member, 'list_members')).body!.result.structuredContent.members;
    expect(members.map((entry: any) => entry.email).sort()).toEqual(['member@acme.test', 'owner@acme.test', 'viewer@acme.test']);
    expect([mine.truncated, all.truncated, (await call(member, 'list_members')).body!.result.structuredContent.truncated]).toEqual([false, false, false]);
  });

  it('lists at most 1,000 members and 200 connected apps, and says that there are more', async () => {
    ({ server } = await inspectDatabase(server, async (query) => {
      const acme = `(SELECT id FROM organizations WHERE slug = 'acme')`;
      await query(`INSERT INTO people (id, email, name, updated_at) SELECT 'bulk-' || i, 'bulk' || i || '@acme.test', 'Bulk ' || lpad(i::text, 4, '0'), now() FROM generate_series(1, 1000) AS i`);
      await query(`INSERT INTO memberships (id, person_id, org_id, role, updated_at) SELECT 'bulk-' || i, 'bulk-' || i, ${acme}, 'member', now() FROM generate_series(1, 1000) AS i`);
      await query(`INSERT INTO grants (id, person_id, org_id, client_id, scopes) SELECT 'bulk-grant-' || i, 'bulk-' || i, ${acme}, $1, ARRAY['mcp:read'] FROM generate_series(1, 200) AS i`, [
        client.client_id,
      ]);
    }));
    try {
      const members = await call(owner, 'list_members');
      expect(members.body!.result.structuredContent.members).toHaveLength(1000);
      expect(members.body!.result.structuredContent.truncated).toBe(true);
      expect(textOf(members)).toMatch(/^1000 member\(s\) of Acme:/);
      expect(textOf(members)).toMatch(/Only the first 1000 by name are listed: there are more\.$/);
      const apps = await call(owner, 'list_connected_apps');
      expect(apps.body!.result.structuredContent.apps).toHaveLength(200);
      expect(apps.body!.result.structuredContent.truncated).toBe(true);
      expect(textOf(apps)).toMatch(/Only the newest 200 are listed: there are more\.$/);
      // A member sees only their own, well under the bound.
      expect((await call(member, 'list_connected_apps')).body!.result.structuredContent.truncated).toBe(false);
    } finally {
      ({ server } = await inspectDatabase(server, async (query) => {
        await query(`DELETE FROM grants WHERE id LIKE 'bulk-grant-%'`);
        await query(`DELETE FROM people WHERE id LIKE 'bulk-%'`);
      }));
    }
  }, 120_000);

  it('serves the org profile resource and the audit prompt with their scopes and roles', async () => {
    const list = await postMcp(server.url, member.access_token, rpc('resources/list'));
    expect(list.body!.result.resources[0].uri).toBe('gatehouse://organization/profile');
    const read = await postMcp(server.url, member.access_token, rpc('resources/read', { uri: 'gatehouse://organization/profile' }));
    expect(JSON.parse(read.body!.result.contents[0].text)).toMatchObject({ name: 'Acme', plan: 'active', yourRole: 'member' });
    const missing = await postMcp(server.url, member.access_token, rpc('resources/read', { uri: 'gatehouse://nothing' }));
    expect(missing.body!.error.code).toBe(-32002);

    const stepUp = await postMcp(server.url, memberWrite.access_token, rpc('resources/read', { uri: 'gatehouse://organization/profile' }));
    expect(stepUp.status).toBe(403);
    expect(stepUp.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(stepUp.headers.get('www-authenticate')).toContain('scope="mcp:read"');
    expect((await postMcp(server.url, memberWrite.access_token, rpc('prompts/get', { name: 'summarize_audit_activity' }))).status).toBe(403);

    const prompts = await postMcp(server.url, owner.access_token, rpc('prompts/list'));
    expect(prompts.body!.result.prompts[0].name).toBe('summarize_audit_activity');
    const prompt = await postMcp(server.url, owner.access_token, rpc('prompts/get', { name: 'summarize_audit_activity', arguments: { days: '3' } }));
    expect(prompt.body!.result.messages[0].content.text).toMatch(/consent\.granted/);
    const refused = await postMcp(server.url, member.access_token, rpc('prompts/get', { name: 'summarize_audit_activity' }));
    expect(refused.status).toBe(403);
  });

  it('holds a prompt built from a tool’s data to that tool’s gates, and lists it only to whom it would answer', async () => {
    const promptNames = async (tokens: Tokens) => ((await postMcp(server.url, tokens.access_token, rpc('prompts/list'))).body!.result.prompts as { name: string }[]).map((prompt) => prompt.name);
    const resourceUris = async (tokens: Tokens) =>
      ((await postMcp(server.url, tokens.access_token, rpc('resources/list'))).body!.result.resources as { uri: string }[]).map((resource) => resource.uri);
    const getPrompt = (tokens: Tokens) => postMcp(server.url, tokens.access_token, rpc('prompts/get', { name: 'summarize_audit_activity' }));
    // The role: read_audit_log is not for a member or a viewer, and neither is the prompt that shows the audit log.
    expect(await promptNames(owner)).toContain('summarize_audit_activity');
    expect(await promptNames(member)).not.toContain('summarize_audit_activity');
    expect(await promptNames(viewer)).not.toContain('summarize_audit_activity');
    // A missing scope is listed: getting it answers the step-up challenge (insufficient_scope), as a tool does.
    const writeOnly = await register(server.url, { client_name: 'Prompt Write Only', redirect_uris: ['https://tools4.example/cb'] });
    const ownerWrite = (await connect(server.url, writeOnly, person('owner@acme.test'), { scopes: ['mcp:write'] })).tokens;
    expect(await promptNames(ownerWrite)).toContain('summarize_audit_activity');
    expect((await getPrompt(ownerWrite)).headers.get('www-authenticate')).toContain('scope="mcp:read"');

    // Switched off for the org: the audit log is hidden from the prompt as from the tool.
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`INSERT INTO tool_restrictions (org_id, tool_name) SELECT id, 'read_audit_log' FROM organizations WHERE slug = 'acme'`);
    }));
    expect(textOf(await call(owner, 'read_audit_log'))).toMatch(/turned off for Acme by an admin/);
    const refused = await getPrompt(owner);
    expect(refused.status).toBe(403);
    expect(refused.body!.error.message).toMatch(/turned off for Acme by an admin/);
    expect(refused.text).not.toMatch(/consent\.granted/);
    expect(await promptNames(owner)).not.toContain('summarize_audit_activity');
    // The org profile resource shows no tool's data: a restriction on read_audit_log leaves it alone.
    expect(await resourceUris(owner)).toEqual(['gatehouse://organization/profile']);

    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`DELETE FROM tool_restrictions WHERE tool_name = 'read_audit_log'`);
    }));
    expect((await getPrompt(owner)).status).toBe(200);
  }, 120_000);

  it('fails the very next call with 401 invalid_token once the grant is revoked', async () => {
    const spare = await connect(server.url, await register(server.url, { client_name: 'Spare', redirect_uris: ['https://spare.example/cb'] }), person('member@acme.test'));
    expect((await call(spare.tokens, 'whoami')).status).toBe(200);
    const grantId = (await call(spare.tokens, 'list_connected_apps')).body!.result.structuredContent.apps.find((app: any) => app.client.name === 'Spare').grantId;
    const revoked = await call(member, 'revoke_connected_app', { grant_id: grantId });
    expect(revoked.body!.result.structuredContent).toEqual({ revoked: true, grantId });
    const next = await call(spare.tokens, 'whoami');
    expect(next.status).toBe(401);
    expect(next.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('limits each grant to 120 requests a minute, across refreshes, with Retry-After', async () => {
    const busyClient = await register(server.url, { client_name: 'Busy', redirect_uris: ['https://busy.example/cb'] });
    const busy = await connect(server.url, busyClient, person('owner@acme.test'));
    const statuses: number[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const replies = await Promise.all(Array.from({ length: 20 }, () => postMcp(server.url, busy.tokens.access_token, rpc('ping'))));
      statuses.push(...replies.map((reply) => reply.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    const limited = await postMcp(server.url, busy.tokens.access_token, rpc('ping'));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A refresh gives a new token for the same grant: the budget stays spent.
    const { body } = await tokenRequest(server.url, { grant_type: 'refresh_token', refresh_token: busy.tokens.refresh_token, client_id: busyClient.client_id });
    expect(body.access_token).not.toBe(busy.tokens.access_token);
    expect((await postMcp(server.url, body.access_token!, rpc('ping'))).status).toBe(429);
  });

  it('applies admin changes on the next call: restrictions, roles, deactivation, plan, disabled clients', async () => {
    const disabledClient = await register(server.url, { client_name: 'To Disable', redirect_uris: ['https://disable.example/cb'] });
    const doomed = await connect(server.url, disabledClient, person('owner@acme.test'));
    ({ server } = await inspectDatabase(server, async (query) => {
      const [acme] = await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`);
      await query(`INSERT INTO tool_restrictions (org_id, tool_name) VALUES ($1, 'list_members')`, [acme!.id]);
      await query(`UPDATE memberships SET role = 'member' WHERE person_id = (SELECT id FROM people WHERE email = 'viewer@acme.test')`);
      await query(`UPDATE memberships SET status = 'deactivated' WHERE person_id = (SELECT id FROM people WHERE email = 'member@acme.test')`);
      await query(`UPDATE clients SET disabled_at = now() WHERE client_id = $1`, [disabledClient.client_id]);
    }));
    const listed = (await postMcp(server.url, owner.access_token, rpc('tools/list'))).body!.result.tools.map((tool: any) => tool.name);
    expect(listed).not.toContain('list_members');
    expect(textOf(await call(owner, 'list_members'))).toMatch(/turned off for Acme by an admin/);
    expect(textOf(await call(owner, 'execute_tool', { name: 'list_members' }))).toMatch(/turned off for Acme by an admin/);
    expect((await call(viewer, 'whoami')).body!.result.isError).toBe(false); // now a member
    const deactivated = await call(member, 'whoami');
    expect(deactivated.status).toBe(403);
    expect(deactivated.body!.error.message).toMatch(/membership in Acme is deactivated/);
    const disabled = await call(doomed.tokens, 'whoami');
    expect(disabled.status).toBe(401);
    expect(disabled.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // A member removed from an org with a name that is not plain ASCII: 401, and a header that stays valid.
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`UPDATE organizations SET plan_status = 'inactive', name = 'Acme — Ünïcode' WHERE slug = 'acme'`);
      await query(`DELETE FROM memberships WHERE person_id = (SELECT id FROM people WHERE email = 'viewer@acme.test')`);
    }));
    const removed = await call(viewer, 'whoami');
    expect(removed.status).toBe(401);
    expect(removed.headers.get('www-authenticate')).toMatch(/^Bearer [\x20-\x7e]+$/);
    expect(removed.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const inactive = await call(owner, 'whoami');
    expect(inactive.status).toBe(403);
    expect(inactive.body!.error.message).toMatch(/Acme — Ünïcode's plan is inactive/);
  }, 120_000);

  it('records every call in the call log, with the trace id of 2026-07-28 requests', async () => {
    ({ server } = await inspectDatabase(server, async (query) => {
      await query(`UPDATE organizations SET plan_status = 'active' WHERE slug = 'acme'`);
    }));
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { body, headers } = rpc2026('tools/call', { name: 'whoami', arguments: {} }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect((await postMcp(server.url, owner.access_token, body, headers)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // flushed within a second
    let rows: Record<string, unknown>[] = [];
    let refusals: Record<string, unknown>[] = [];
    let lastUsed: Record<string, unknown>[] = [];
    ({
      server,
      result: [rows, refusals, lastUsed],
    } = await inspectDatabase(server, async (query) => [
      await query(`SELECT method, tool_name, outcome, http_status, protocol_version, trace_id, grant_id, org_id FROM mcp_calls WHERE trace_id = $1`, [traceId]),
      await query(`SELECT DISTINCT outcome FROM mcp_calls`),
      await query(`SELECT count(*)::int AS used FROM grants WHERE last_used_at IS NOT NULL AND revoked_at IS NULL`),
    ]));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: 'tools/call', tool_name: 'whoami', outcome: 'ok', http_status: 200, protocol_version: '2026-07-28' });
    expect(rows[0]!.grant_id).toEqual(expect.any(String));
    expect(refusals.map((row) => row.outcome)).toEqual(expect.arrayContaining(['ok', 'refused_scope', 'refused_role', 'restricted', 'invalid_arguments', 'unauthorized', 'forbidden', 'rate_limited']));
    // Grants that made calls are marked used (at most once a minute each, by the call-log flush).
    expect(Number(lastUsed[0]!.used)).toBeGreaterThan(0);
  }, 60_000);
});
