// The members page (issue: Members): who may act on whom, the last active owner, ids from another org,
// one-time set-password links, and every server action called as an attacker would — signed out, by a
// member, by another org's admin, with another org's ids — each time leaving the database as it was.
import { createHash } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { inspectDatabase, type Query } from '../helpers/inspect';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register } from '../helpers/oauth';
import { callServerAction, formData } from '../helpers/server-actions';
import { freePort, startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { signIn, type CookieJar } from '../helpers/session';

const ACTIONS = 'app/admin/[org]/members/actions.ts';
const SET_PASSWORD = 'app/set-password/[token]/actions.ts';
const ACTION_NAMES = ['addMemberAction', 'changeRoleAction', 'deactivateMemberAction', 'reactivateMemberAction', 'removeMemberAction', 'passwordLinkAction', 'unlockMemberAction'] as const;
const LINK = /\/set-password\/([A-Za-z0-9_-]{43})$/;

type Result = { ok: true; value: any } | { ok: false; error: string };

/** People and memberships the tests refer to, by name. */
type Ids = { acme: string; globex: string; person: Record<string, string>; membership: Record<string, string> };

/** A second org (Globex, its own owner), an admin in Acme, and a person of no org, beside the demo data. */
async function setUp(query: Query): Promise<Ids> {
  const [{ password_hash: hash }] = (await query<{ password_hash: string }>(`SELECT password_hash FROM people WHERE email = 'owner@acme.test'`)) as [{ password_hash: string }];
  const one = async (sql: string, params: unknown[]) => ((await query<{ id: string }>(sql, params))[0] as { id: string }).id;
  const globex = await one(`INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'globex', 'Globex', now()) RETURNING id`, []);
  const person = (email: string, name: string, locked = false) =>
    one(
      `INSERT INTO people (id, email, name, password_hash, failed_sign_ins, locked_until, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, now()) RETURNING id`,
      [email, name, hash, locked ? 10 : 0, locked ? new Date(Date.now() + 600_000) : null],
    );
  const member = (personId: string, orgId: string, role: string, status = 'active') =>
    one(`INSERT INTO memberships (id, person_id, org_id, role, status, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, now()) RETURNING id`, [personId, orgId, role, status]);
  const [acme] = await query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`);
  const people = await query<{ id: string; email: string }>(`SELECT id, email FROM people`);
  const demo = (email: string) => people.find((row) => row.email === email)!.id;
  const ids: Ids = {
    acme: acme!.id,
    globex,
    person: { olivia: demo('owner@acme.test'), max: demo('member@acme.test'), vera: demo('viewer@acme.test') },
    membership: {},
  };
  ids.person.ada = await person('ada@acme.test', 'Ada Admin');
  ids.person.gus = await person('gus@globex.test', 'Gus Globex');
  ids.person.gina = await person('gina@globex.test', 'Gina Globex', true);
  ids.person.gil = await person('gil@globex.test', 'Gil Globex');
  ids.person.pat = await person('pat@example.test', 'Pat Nobody');
  ids.membership.ada = await member(ids.person.ada, ids.acme, 'admin');
  ids.membership.gus = await member(ids.person.gus, globex, 'owner');
  ids.membership.gina = await member(ids.person.gina, globex, 'member');
  ids.membership.gil = await member(ids.person.gil, globex, 'member', 'deactivated');
  for (const [name, email] of [
    ['olivia', 'owner@acme.test'],
    ['max', 'member@acme.test'],
    ['vera', 'viewer@acme.test'],
  ] as const) {
    const [row] = await query<{ id: string }>(`SELECT m.id FROM memberships m JOIN people p ON p.id = m.person_id WHERE p.email = $1 AND m.org_id = $2`, [email, ids.acme]);
    ids.membership[name] = row!.id;
  }
  return ids;
}

/** Everything a members action could change. */
async function state(query: Query) {
  return {
    people: await query(`SELECT id, email, name, password_hash, failed_sign_ins, locked_until, disabled_at FROM people ORDER BY id`),
    memberships: await query(`SELECT id, person_id, org_id, role, status FROM memberships ORDER BY id`),
    links: await query(`SELECT token_hash, person_id, expires_at, used_at FROM password_links ORDER BY token_hash`),
    grants: await query(`SELECT id, revoked_at FROM grants ORDER BY id`),
    sessions: await query(`SELECT id, ended_at FROM sign_in_sessions ORDER BY id`),
    audit: await query(`SELECT count(*)::int AS events FROM audit_events`),
  };
}

// Reading the embedded database restarts its server (tests/helpers/inspect.ts): a few of those per test.
describe.each(DATABASES)('Members on the %s database', { timeout: 180_000 }, (kind) => {
  let server: RunningServer;
  let ids: Ids;
  const jars: Record<string, CookieJar> = {};
  const passwords: Record<string, string> = {};

  const inspect = async <T>(work: (query: Query) => Promise<T>): Promise<T> => {
    const inspected = await inspectDatabase(server, work);
    server = inspected.server;
    return inspected.result;
  };
  const act = async (jar: CookieJar | null, name: string, input: unknown, org = 'acme'): Promise<Result> => {
    const call = await callServerAction(server.url, jar, { file: ACTIONS, name }, [org, input]);
    expect(call.status, call.body.slice(0, 300)).toBe(200);
    return call.result as Result;
  };
  const setPassword = async (token: string, password: string, confirm = password) =>
    (await callServerAction(server.url, null, { file: SET_PASSWORD, name: 'setPasswordAction' }, [null, formData({ token, password, confirm })])).result as
      | { ok: true; email: string }
      | { ok: false; field: string; error: string };
  const signInAs = async (who: string, email: string) => {
    const { jar, response } = await signIn(server.url, email, passwords[who] ?? TEST_DEMO_PASSWORD);
    expect(response.status, `${who} signs in`).toBe(200);
    jars[who] = jar;
  };
  /** Runs `work` and proves the database is exactly as it was before. */
  const unchanged = async (work: () => Promise<void>) => {
    const before = await inspect(state);
    await work();
    expect(await inspect(state)).toEqual(before);
  };
  const auditRows = (types: string[]) =>
    inspect((query) =>
      query<{ type: string; org_id: string; actor_person_id: string; data: Record<string, unknown> }>(`SELECT type, org_id, actor_person_id, data FROM audit_events WHERE type = ANY($1) ORDER BY id`, [
        types,
      ]),
    );

  beforeAll(async () => {
    server = await startServer({ database: kind });
    ids = await inspect(setUp);
    for (const [who, email] of [
      ['olivia', 'owner@acme.test'],
      ['ada', 'ada@acme.test'],
      ['max', 'member@acme.test'],
      ['vera', 'viewer@acme.test'],
      ['gus', 'gus@globex.test'],
    ] as const) {
      await signInAs(who, email);
    }
  });
  afterAll(async () => server?.stop());

  it('opens the members page to owners and admins only', async () => {
    const page = await jars.olivia!.fetch(`${server.url}/admin/acme/members`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Members · Admin · Gatehouse</title>');
    for (const text of ['Max Member', 'member@acme.test', 'Vera Viewer', 'Ada Admin']) expect(html).toContain(text);
    expect(html).not.toContain('Gus Globex');
    expect((await jars.ada!.fetch(`${server.url}/admin/acme/members`)).status).toBe(200);
    expect((await jars.max!.fetch(`${server.url}/admin/acme/members`)).status).toBe(404);
    expect((await jars.gus!.fetch(`${server.url}/admin/acme/members`)).status).toBe(404);
    const anonymous = await fetch(`${server.url}/admin/acme/members`, { redirect: 'manual' });
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get('location')).toContain(`/login?callbackUrl=${encodeURIComponent('/admin/acme/members')}`);
  });

  it('refuses every action to a signed-out caller, a member, a viewer and another org’s admin, changing nothing', async () => {
    const inputs = (membershipId: string): Record<(typeof ACTION_NAMES)[number], unknown> => ({
      addMemberAction: { email: 'intruder@example.test', role: 'owner', name: 'In Truder' },
      changeRoleAction: { membershipId, role: 'owner' },
      deactivateMemberAction: { membershipId },
      reactivateMemberAction: { membershipId },
      removeMemberAction: { membershipId },
      passwordLinkAction: { membershipId },
      unlockMemberAction: { membershipId },
    });
    await unchanged(async () => {
      for (const [caller, jar] of [
        ['signed out', null],
        ['a member', jars.max!],
        ['a viewer', jars.vera!],
        ["Globex's owner", jars.gus!],
      ] as const) {
        for (const target of [ids.membership.max!, ids.membership.olivia!]) {
          for (const [name, input] of Object.entries(inputs(target))) {
            const result = await act(jar, name, input);
            expect(result, `${name} by ${caller}`).toMatchObject({ ok: false });
            if (caller === 'signed out') expect(result.ok === false && result.error).toMatch(/sign in again/);
          }
        }
      }
    });
  });

  it('answers ids of another org as unknown, for an owner of this org, changing nothing (IDOR)', async () => {
    await unchanged(async () => {
      for (const target of [ids.membership.gus!, ids.membership.gina!, ids.membership.gil!, ids.person.gina!, ids.person.gus!]) {
        for (const name of ACTION_NAMES.filter((action) => action !== 'addMemberAction')) {
          const result = await act(jars.olivia!, name, { membershipId: target, role: 'viewer' });
          expect(result, `${name} on ${target}`).toEqual({ ok: false, error: 'This person is not a member of this organization.' });
        }
      }
      // Nor may the owner of Acme act in Globex, where she is nobody.
      for (const name of ACTION_NAMES) {
        expect(await act(jars.olivia!, name, { membershipId: ids.membership.gina!, email: 'x@example.test', role: 'viewer' }, 'globex')).toMatchObject({ ok: false });
      }
    });
  });

  it('lets only owners manage owners: an admin can neither touch an owner nor make one', async () => {
    await unchanged(async () => {
      const olivia = { membershipId: ids.membership.olivia! };
      for (const [name, input] of [
        ['changeRoleAction', { ...olivia, role: 'member' }],
        ['deactivateMemberAction', olivia],
        ['removeMemberAction', olivia],
        ['passwordLinkAction', olivia],
        ['unlockMemberAction', olivia],
        ['changeRoleAction', { membershipId: ids.membership.max!, role: 'owner' }],
        ['addMemberAction', { email: 'pat@example.test', role: 'owner' }],
        ['addMemberAction', { email: 'new-owner@example.test', role: 'owner', name: 'New Owner' }],
      ] as const) {
        const result = await act(jars.ada!, name, input);
        expect(result, name).toMatchObject({ ok: false, error: expect.stringMatching(/^Only an owner can (manage an owner|make someone an owner)\.$/) });
      }
    });
    // An admin manages everyone else.
    expect(await act(jars.ada!, 'changeRoleAction', { membershipId: ids.membership.max!, role: 'viewer' })).toMatchObject({ ok: true });
    expect(await act(jars.ada!, 'changeRoleAction', { membershipId: ids.membership.max!, role: 'member' })).toMatchObject({ ok: true });
    const audit = await auditRows(['member.role_changed']);
    expect(audit.map((row) => [row.actor_person_id, row.org_id, row.data.from, row.data.to])).toEqual([
      [ids.person.ada, ids.acme, 'member', 'viewer'],
      [ids.person.ada, ids.acme, 'viewer', 'member'],
    ]);
  });

  it('never lets the last active owner be demoted, deactivated or removed, not even by herself', async () => {
    await unchanged(async () => {
      const olivia = { membershipId: ids.membership.olivia! };
      for (const [name, input] of [
        ['changeRoleAction', { ...olivia, role: 'admin' }],
        ['deactivateMemberAction', olivia],
        ['removeMemberAction', olivia],
      ] as const) {
        expect(await act(jars.olivia!, name, input), name).toEqual({
          ok: false,
          error: 'Olivia Owner is the last active owner of Acme. Make someone else an owner first.',
        });
      }
    });
  });

  it('lets only one of two concurrent demotions of the last two owners pass', async () => {
    expect(await act(jars.olivia!, 'changeRoleAction', { membershipId: ids.membership.ada!, role: 'owner' })).toMatchObject({ ok: true });
    const results = await Promise.all([
      act(jars.olivia!, 'changeRoleAction', { membershipId: ids.membership.ada!, role: 'admin' }),
      act(jars.ada!, 'changeRoleAction', { membershipId: ids.membership.olivia!, role: 'admin' }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    const owners = await inspect((query) => query<{ id: string }>(`SELECT id FROM memberships WHERE org_id = $1 AND role = 'owner' AND status = 'active'`, [ids.acme]));
    expect(owners).toHaveLength(1);
    // Back to Olivia as the owner and Ada as an admin, whoever won.
    if (owners[0]!.id === ids.membership.ada) {
      expect(await act(jars.ada!, 'changeRoleAction', { membershipId: ids.membership.olivia!, role: 'owner' })).toMatchObject({ ok: true });
      expect(await act(jars.olivia!, 'changeRoleAction', { membershipId: ids.membership.ada!, role: 'admin' })).toMatchObject({ ok: true });
    }
  });

  it('adds a person who has an account, and invites one who has none with a one-time link', async () => {
    expect(await act(jars.olivia!, 'addMemberAction', { email: ' Pat@Example.test ', role: 'viewer' })).toMatchObject({ ok: true, value: { kind: 'added', name: 'Pat Nobody' } });
    expect(await act(jars.olivia!, 'addMemberAction', { email: 'pat@example.test', role: 'member' })).toEqual({ ok: false, error: 'Pat Nobody is already a member of Acme.' });

    expect(await act(jars.olivia!, 'addMemberAction', { email: 'nina@acme.test', role: 'member' })).toEqual({ ok: true, value: { kind: 'needs_name', email: 'nina@acme.test' } });
    const invited = await act(jars.olivia!, 'addMemberAction', { email: 'nina@acme.test', role: 'admin', name: 'Nina New' });
    expect(invited).toMatchObject({ ok: true, value: { kind: 'invited', name: 'Nina New', link: { purpose: 'invite', emailed: false } } });
    const link = (invited as { value: { link: { url: string; expiresAt: string } } }).value.link;
    expect(link.url.startsWith(`${server.url}/set-password/`)).toBe(true);
    const token = LINK.exec(link.url)![1]!;
    // Valid for 7 days; shown to the admin, and logged for the operator since no mail server is configured.
    expect(Math.abs(new Date(link.expiresAt).getTime() - Date.now() - 7 * 86_400_000)).toBeLessThan(60_000);
    expect(server.output()).toMatch(new RegExp(`invitation for Nina New <nina@acme.test> in Acme, made by Olivia Owner: ${link.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    const page = await (await fetch(link.url)).text();
    expect(page).toContain('Nina New');
    expect(page).toContain('nina@acme.test');
    expect(page).toContain('Repeat the new password');

    // Nobody signs in before the password is set.
    expect((await signIn(server.url, 'nina@acme.test', '')).response.status).toBe(401);
    expect(await setPassword(token, 'short')).toMatchObject({ ok: false, field: 'password' });
    expect(await setPassword(token, 'nina’s new password', 'another password')).toMatchObject({ ok: false, field: 'confirm' });
    expect(await setPassword('A'.repeat(43), 'nina’s new password')).toMatchObject({ ok: false, field: 'link' });
    expect(await setPassword(token, 'nina’s new password')).toEqual({ ok: true, email: 'nina@acme.test' });
    expect(await setPassword(token, 'someone else’s password')).toMatchObject({ ok: false, field: 'link' });
    expect(await (await fetch(link.url)).text()).toContain('This link was already used');
    expect((await signIn(server.url, 'nina@acme.test', 'nina’s new password')).response.status).toBe(200);
    expect((await signIn(server.url, 'nina@acme.test', 'someone else’s password')).response.status).toBe(401);

    const [stored] = await inspect((query) =>
      query<{ token_hash: string; used_at: Date | null; role: string; purpose: string }>(
        `SELECT l.token_hash, l.used_at, l.purpose, m.role FROM password_links l JOIN people p ON p.id = l.person_id
         JOIN memberships m ON m.person_id = p.id AND m.org_id = l.org_id WHERE p.email = 'nina@acme.test'`,
      ),
    );
    expect(stored).toMatchObject({ token_hash: createHash('sha256').update(token).digest('hex'), purpose: 'invite', role: 'admin' });
    expect(stored!.used_at).not.toBeNull();
    const audit = await auditRows(['member.added', 'member.invited', 'person.password_set']);
    expect(audit.map((row) => [row.type, row.actor_person_id, row.org_id, row.data.email])).toEqual([
      ['member.added', ids.person.olivia, ids.acme, 'pat@example.test'],
      ['member.invited', ids.person.olivia, ids.acme, 'nina@acme.test'],
      ['person.password_set', expect.any(String), ids.acme, undefined],
    ]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('deactivation answers 403 on the next /mcp call and keeps the grant; removal revokes it (401)', async () => {
    const client = await register(server.url, { client_name: 'Members Test', redirect_uris: ['https://members.example/cb'] });
    const { tokens } = await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD });
    const call = () => postMcp(server.url, tokens.access_token, rpc('ping'));
    expect((await call()).status).toBe(200);
    expect(await act(jars.olivia!, 'deactivateMemberAction', { membershipId: ids.membership.max! })).toMatchObject({ ok: true });
    expect((await call()).status).toBe(403);
    expect(await act(jars.olivia!, 'reactivateMemberAction', { membershipId: ids.membership.max! })).toMatchObject({ ok: true });
    expect((await call()).status).toBe(200);
    expect(await act(jars.olivia!, 'removeMemberAction', { membershipId: ids.membership.max! })).toEqual({ ok: true, value: { revoked: 1 } });
    const removed = await call();
    expect(removed.status).toBe(401);
    expect(removed.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const grants = await inspect((query) => query(`SELECT revoked_by_id, revoke_reason FROM grants WHERE person_id = $1`, [ids.person.max]));
    expect(grants).toEqual([{ revoked_by_id: ids.person.olivia, revoke_reason: 'member_removed' }]);
    const audit = await auditRows(['member.deactivated', 'member.reactivated', 'member.removed']);
    expect(audit.map((row) => [row.type, row.actor_person_id, row.org_id, row.data.personId])).toEqual([
      ['member.deactivated', ids.person.olivia, ids.acme, ids.person.max],
      ['member.reactivated', ids.person.olivia, ids.acme, ids.person.max],
      ['member.removed', ids.person.olivia, ids.acme, ids.person.max],
    ]);
    expect(audit[2]!.data.grantsRevoked).toBe(1);

    // Back as a member (an existing account): a new membership, the old grant stays revoked.
    const readded = await act(jars.olivia!, 'addMemberAction', { email: 'member@acme.test', role: 'member' });
    expect(readded).toMatchObject({ ok: true, value: { kind: 'added', membershipId: expect.any(String) } });
    expect((await call()).status).toBe(401);
    ids.membership.max = (readded as { value: { membershipId: string } }).value.membershipId;
  });

  it('lifts a sign-in lockout', async () => {
    for (let attempt = 0; attempt < 10; attempt++) await signIn(server.url, 'viewer@acme.test', `wrong ${attempt}`);
    expect((await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(401);
    expect(await (await jars.olivia!.fetch(`${server.url}/admin/acme/members`)).text()).toMatch(/Locked until/);
    expect(await act(jars.olivia!, 'unlockMemberAction', { membershipId: ids.membership.vera! })).toMatchObject({ ok: true });
    expect((await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(200);
    const [audit] = await auditRows(['person.unlocked']);
    expect(audit).toMatchObject({ actor_person_id: ids.person.olivia, org_id: ids.acme, data: { personId: ids.person.vera } });
  });

  it('makes reset links only for people the admin outranks everywhere; only the newest works, once, and ends every session', async () => {
    // Gina also belongs to Globex, where Ada is nobody: a link would hand Ada a Globex account.
    const added = await act(jars.olivia!, 'addMemberAction', { email: 'gina@globex.test', role: 'member' });
    expect(added).toMatchObject({ ok: true });
    const gina = (added as { value: { membershipId: string } }).value.membershipId;
    await unchanged(async () => {
      expect(await act(jars.ada!, 'passwordLinkAction', { membershipId: gina })).toMatchObject({ ok: false, error: expect.stringMatching(/also belongs to Globex/) });
      expect(await act(jars.ada!, 'passwordLinkAction', { membershipId: ids.membership.ada! })).toMatchObject({ ok: false, error: expect.stringMatching(/Account page/) });
    });

    await signInAs('max', 'member@acme.test');
    const first = await act(jars.ada!, 'passwordLinkAction', { membershipId: ids.membership.max! });
    const second = await act(jars.ada!, 'passwordLinkAction', { membershipId: ids.membership.max! });
    expect(second).toMatchObject({ ok: true, value: { purpose: 'reset', emailed: false } });
    const [firstToken, secondToken] = [first, second].map((result) => LINK.exec((result as { value: { url: string } }).value.url)![1]!);
    const expiresAt = new Date((second as { value: { expiresAt: string } }).value.expiresAt).getTime();
    expect(Math.abs(expiresAt - Date.now() - 86_400_000)).toBeLessThan(60_000); // 24 hours

    // Until the link is used, nothing changes for Max.
    expect((await jars.max!.fetch(`${server.url}/`)).status).toBe(200);
    expect(await setPassword(firstToken!, 'max’s new password')).toMatchObject({ ok: false, field: 'link' });
    expect(await (await fetch(`${server.url}/set-password/${firstToken}`)).text()).toContain('This link has expired, or a newer link replaced it.');
    expect(await setPassword(secondToken!, 'max’s new password')).toEqual({ ok: true, email: 'member@acme.test' });
    expect(await setPassword(secondToken!, 'max’s newer password')).toMatchObject({ ok: false, field: 'link' });
    passwords.max = 'max’s new password';

    // Every browser Max was signed in with is signed out; the old password is gone.
    expect((await jars.max!.fetch(`${server.url}/`)).status).toBe(307);
    expect((await signIn(server.url, 'member@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(401);
    await signInAs('max', 'member@acme.test');

    // An expired link does nothing.
    const third = await act(jars.olivia!, 'passwordLinkAction', { membershipId: ids.membership.max! });
    const thirdToken = LINK.exec((third as { value: { url: string } }).value.url)![1]!;
    const sessions = await inspect(async (query) => {
      await query(`UPDATE password_links SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [createHash('sha256').update(thirdToken).digest('hex')]);
      return query<{ end_reason: string | null }>(`SELECT end_reason FROM sign_in_sessions WHERE person_id = $1 ORDER BY created_at`, [ids.person.max]);
    });
    expect(sessions.length).toBeGreaterThan(2);
    expect(sessions.map((session) => session.end_reason)).toEqual([...Array(sessions.length - 1).fill('password_reset'), null]);
    expect(await (await fetch(`${server.url}/set-password/${thirdToken}`)).text()).toContain('This link has expired');
    expect(await setPassword(thirdToken, 'max’s newest password')).toMatchObject({ ok: false, field: 'link' });
    expect((await signIn(server.url, 'member@acme.test', passwords.max)).response.status).toBe(200);

    const audit = await auditRows(['person.password_reset_link_created', 'person.password_set']);
    expect(audit.filter((row) => row.type === 'person.password_reset_link_created').map((row) => [row.actor_person_id, row.org_id, row.data.personId])).toEqual([
      [ids.person.ada, ids.acme, ids.person.max],
      [ids.person.ada, ids.acme, ids.person.max],
      [ids.person.olivia, ids.acme, ids.person.max],
    ]);
    expect(audit.filter((row) => row.type === 'person.password_set' && row.data.purpose === 'reset')).toEqual([
      expect.objectContaining({ actor_person_id: ids.person.max, org_id: ids.acme, data: expect.objectContaining({ personId: ids.person.max, linkCreatedById: ids.person.ada }) }),
    ]);
    expect(server.output()).not.toContain(`gatehouse: emailed`);
  });
});

describe('Members with SMTP configured', () => {
  let server: RunningServer;
  let sink: SMTPServer;
  const received: { from: string; to: string[]; user: string | undefined; text: string }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    sink = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: (auth, _session, callback) => (auth.username === 'mailer' && auth.password === 'mail secret' ? callback(null, { user: 'mailer' }) : callback(new Error('Invalid username or password'))),
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          // Long lines arrive quoted-printable: undo the soft line breaks and escapes.
          const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((to) => to.address),
            user: session.user as string | undefined,
            text,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
    server = await startServer({
      database: 'embedded',
      env: { SMTP_URL: `smtp://mailer:${encodeURIComponent('mail secret')}@127.0.0.1:${port}`, SMTP_FROM: 'Gatehouse <gatehouse@example.test>' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => (sink ? sink.close(() => resolve()) : resolve()));
  });

  it('emails an invitation link, and keeps the link out of the server log', async () => {
    const { jar } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    const call = await callServerAction(server.url, jar, { file: ACTIONS, name: 'addMemberAction' }, ['acme', { email: 'mia@example.test', role: 'member', name: 'Mia Mail' }]);
    expect(call.result).toMatchObject({ ok: true, value: { kind: 'invited', link: { emailed: true } } });
    const url = (call.result as { value: { link: { url: string } } }).value.link.url;

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'gatehouse@example.test', to: ['mia@example.test'], user: 'mailer' });
    expect(received[0]!.text).toContain('Subject: Your Gatehouse invitation');
    expect(received[0]!.text).toContain('Hello Mia Mail,');
    expect(received[0]!.text).toContain('Olivia Owner invited you to Acme on Gatehouse.');
    expect(received[0]!.text).toContain(url);
    expect(server.output()).toContain('gatehouse: emailed the invitation for Acme to Mia Mail <mia@example.test>');
    expect(server.output()).not.toContain(LINK.exec(url)![1]!);

    // The emailed link works like any other.
    const token = LINK.exec(url)![1]!;
    const set = await callServerAction(server.url, null, { file: SET_PASSWORD, name: 'setPasswordAction' }, [null, formData({ token, password: 'mia’s own password', confirm: 'mia’s own password' })]);
    expect(set.result).toEqual({ ok: true, email: 'mia@example.test' });
  });
});
