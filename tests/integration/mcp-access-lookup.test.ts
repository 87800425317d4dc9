// The /mcp hot path reads its caller with one hand-written statement (lib/mcp/access-lookup.ts) instead
// of the provider's token lookup and Prisma. This proves the two agree: real tokens from the real flow,
// then every way a token can stop being good (expiry, consumption, audience, revocation, a disabled
// client, person or membership, an inactive plan…), each answered by both and compared. The reference
// is oidc-provider's own AccessToken.find (with Gatehouse's storage adapter) plus the Prisma reads the
// endpoint used to make; both views then go through the same decision, so any difference is the lookup's.
import { randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, db } from '@/lib/db/client';
import { appStanding, type Block } from '@/lib/apps/decisions';
import { lookupAccess, type AccessRow } from '@/lib/mcp/access-lookup';
import { callerFrom } from '@/lib/mcp/caller';
import type { Prisma } from '@/lib/generated/prisma/client';
import { McpError } from '@/lib/mcp/errors';
import { storageId } from '@/lib/oauth/adapter';
import { revokeGrant } from '@/lib/grants/revoke';
import { oauthProvider } from '@/lib/oauth/provider';
import { mcpResource } from '@/lib/oauth/resource';
import { forgetProcessSingleton } from '@/lib/server/process-singleton';
import { DATABASES } from '../helpers/databases';
import { connect, register, type Tokens } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

type Outcome = { accepted: true; caller: ReturnType<typeof callerFrom> } | { accepted: false; status: number; message: string };

function decide(row: AccessRow | null): Outcome {
  try {
    return { accepted: true, caller: callerFrom(row) };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { accepted: false, status: error.httpStatus, message: error.message };
  }
}

/** What the endpoint read before the single statement: the provider's lookup, then Prisma. */
async function referenceRow(provider: Provider, value: string): Promise<AccessRow | null> {
  const token = await provider.AccessToken.find(value);
  if (!token) return null;
  const grant = token.grantId
    ? await db().grant.findUnique({
        where: { id: token.grantId },
        include: { client: true, person: true, org: { include: { memberships: true, toolRestrictions: true } } },
      })
    : null;
  const membership = grant?.org.memberships.find((candidate) => candidate.personId === grant.personId);
  // The provider never consumes an access token, and its AccessToken keeps no `consumed`; the adapter
  // reports one as it does for codes and refresh tokens, where the provider refuses a consumed one. So
  // does /mcp: a consumed token is spent.
  const consumed = (await provider.AccessToken.adapter.find(value))?.consumed;
  const payload = Object.fromEntries(Object.entries(token).filter(([, field]) => field !== undefined));
  return {
    token_payload: payload,
    token_expires_at: null, // the adapter already refused an expired row
    token_consumed_at: typeof consumed === 'number' ? new Date(consumed * 1000) : null,
    grant_id: grant?.id ?? null,
    grant_person_id: grant?.personId ?? null,
    grant_org_id: grant?.orgId ?? null,
    grant_client_id: grant?.clientId ?? null,
    grant_scopes: grant?.scopes ?? null,
    grant_last_used_at: grant?.lastUsedAt ?? null,
    grant_revoked_at: grant?.revokedAt ?? null,
    client_name: grant?.client.name ?? null,
    client_disabled_at: grant?.client.disabledAt ?? null,
    person_name: grant?.person.name ?? null,
    person_email: grant?.person.email ?? null,
    person_disabled_at: grant?.person.disabledAt ?? null,
    org_name: grant?.org.name ?? null,
    org_plan_status: grant?.org.planStatus ?? null,
    membership_role: membership?.role ?? null,
    membership_status: membership?.status ?? null,
    restricted_tools: grant ? grant.org.toolRestrictions.map((restriction) => restriction.toolName) : null,
    ...(await appColumns(grant)),
    // No connector tool is named here (connectors-mcp.test.ts shows a named one read with the caller).
    connector_tool: null,
  };
}

/** The decisions on the grant's app, as lib/apps/decisions.ts (Prisma) reads them, in the statement's spelling. */
async function appColumns(grant: { clientId: string; orgId: string; org: { appPolicy: string } } | null) {
  if (!grant) return { app_name: null, app_blocked_everywhere_by: null, app_blocked_in_org_by: null, org_app_policy: null, app_approved: false };
  const standing = await appStanding(grant.clientId, [grant.orgId]);
  const inOrg = standing.orgs.get(grant.orgId)!;
  const by = (block: Block | null) => (block === null ? null : block.appId === standing.app?.id ? '' : block.appName);
  return {
    app_name: standing.app?.name ?? null,
    app_blocked_everywhere_by: by(standing.blockedEverywhere),
    app_blocked_in_org_by: by(inOrg.block),
    org_app_policy: grant.org.appPolicy,
    app_approved: inOrg.approved,
  };
}

/** Sets process.env to the server's and forgets any database, provider or configuration already opened. */
async function adoptServerEnvironment(server: RunningServer): Promise<void> {
  await closeDatabase();
  forgetProcessSingleton('env');
  forgetProcessSingleton('provider');
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'PUBLIC_URL', 'AUTH_SECRET', 'REDIS_URL']) delete process.env[name];
  Object.assign(process.env, server.env);
}

describe.each(DATABASES)('the /mcp caller lookup on the %s database', (kind) => {
  let server: RunningServer;
  let provider: Provider;
  let member: Tokens;
  let viewer: Tokens;
  let grantId: string;
  let orgId: string;
  let personId: string;
  let clientId: string;

  beforeAll(async () => {
    server = await startServer({ database: kind });
    const client = await register(server.url, { client_name: 'Lookup Test', redirect_uris: ['https://lookup.example/cb'] });
    member = (await connect(server.url, client, { email: 'member@acme.test', password: TEST_DEMO_PASSWORD })).tokens;
    viewer = (await connect(server.url, client, { email: 'viewer@acme.test', password: TEST_DEMO_PASSWORD }, { scopes: ['mcp:read'] })).tokens;
    // The embedded database allows one process: the server steps aside, and this process reads its data.
    await server.halt();
    await adoptServerEnvironment(server);
    provider = await oauthProvider();
    const row = (await lookupAccess(member.access_token))!;
    grantId = row.grant_id!;
    orgId = row.grant_org_id!;
    personId = row.grant_person_id!;
    clientId = row.grant_client_id!;
  });
  afterAll(async () => {
    await closeDatabase();
    await server?.stop();
  });

  /** A further access token of the member's grant, minted by the provider exactly as the token endpoint does. */
  async function mintToken(overrides: Record<string, unknown> = {}): Promise<string> {
    const original = (await provider.AccessToken.find(member.access_token))!;
    const token = new provider.AccessToken({
      client: (await provider.Client.find(original.clientId!))!,
      accountId: original.accountId,
      grantId: original.grantId,
      gty: original.gty,
      scope: original.scope,
      aud: original.aud,
      ...overrides,
    });
    return token.save();
  }

  async function setPayload(value: string, changes: Record<string, unknown>): Promise<void> {
    const key = { model: 'AccessToken', id: storageId('AccessToken', value) };
    const row = await db().oidcModel.findUniqueOrThrow({ where: { model_id: key } });
    await db().oidcModel.update({ where: { model_id: key }, data: { payload: { ...(row.payload as object), ...changes } as Prisma.InputJsonValue } });
  }

  async function compare(value: string): Promise<Outcome> {
    const fast = decide(await lookupAccess(value));
    const reference = decide(await referenceRow(provider, value));
    expect(fast).toEqual(reference);
    return fast;
  }

  async function expectRefused(value: string, status = 401): Promise<string> {
    const outcome = await compare(value);
    expect(outcome.accepted, JSON.stringify(outcome)).toBe(false);
    expect(outcome.accepted === false && outcome.status).toBe(status);
    return outcome.accepted ? '' : outcome.message;
  }

  it('accepts a live token with the same caller: person, org, role, client, scopes, restrictions', async () => {
    for (const tokens of [member, viewer]) {
      const outcome = await compare(tokens.access_token);
      expect(outcome.accepted).toBe(true);
    }
    const viewerOutcome = await compare(viewer.access_token);
    expect(viewerOutcome.accepted && [viewerOutcome.caller.role, viewerOutcome.caller.scopes]).toEqual(['viewer', ['mcp:read']]);
    const minted = await compare(await mintToken());
    expect(minted.accepted && minted.caller.grantId).toBe(grantId);
  });

  it('refuses what was never an access token: unknown values, a refresh token, a code-shaped string', async () => {
    await expectRefused(`mcp_at_${randomBytes(32).toString('base64url')}`);
    await expectRefused(member.refresh_token);
    await expectRefused('');
  });

  it('refuses expiry by the stored row and by the token’s own exp', async () => {
    const rowExpired = await mintToken();
    await db().oidcModel.update({
      where: { model_id: { model: 'AccessToken', id: storageId('AccessToken', rowExpired) } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectRefused(rowExpired);
    const payloadExpired = await mintToken();
    await setPayload(payloadExpired, { exp: Math.floor(Date.now() / 1000) - 1 });
    expect(await expectRefused(payloadExpired)).toMatch(/invalid or expired/);
    const expiringNow = await mintToken();
    await setPayload(expiringNow, { exp: Math.floor(Date.now() / 1000) });
    await expectRefused(expiringNow);
    const malformed = await mintToken();
    await setPayload(malformed, { exp: String(Math.floor(Date.now() / 1000) + 600) });
    await expectRefused(malformed);
    const notYet = await mintToken();
    await setPayload(notYet, { nbf: Math.floor(Date.now() / 1000) + 3600 });
    await expectRefused(notYet);
  });

  it('refuses a consumed token', async () => {
    const consumed = await mintToken();
    await db().oidcModel.update({
      where: { model_id: { model: 'AccessToken', id: storageId('AccessToken', consumed) } },
      data: { consumedAt: new Date() },
    });
    await expectRefused(consumed);
  });

  it('refuses a token for another audience and accepts one whose audiences include /mcp', async () => {
    expect(await expectRefused(await mintToken({ aud: 'https://elsewhere.example/mcp' }))).toMatch(/another resource/);
    const several = await compare(await mintToken({ aud: ['https://elsewhere.example/api', mcpResource()] }));
    expect(several.accepted).toBe(true);
  });

  it('refuses a token whose account is not the grant’s person', async () => {
    const other = await db().person.findFirstOrThrow({ where: { email: 'owner@acme.test' } });
    await expectRefused(await mintToken({ accountId: other.id }));
  });

  it('follows the grant, client, person, membership and plan as they change', async () => {
    const restore: (() => Promise<unknown>)[] = [];
    const change = async (apply: () => Promise<unknown>, undo: () => Promise<unknown>, status: number | null, message?: RegExp) => {
      await apply();
      restore.push(undo);
      try {
        if (status === null) expect((await compare(member.access_token)).accepted).toBe(true);
        else expect(await expectRefused(member.access_token, status)).toMatch(message ?? /./);
      } finally {
        await undo();
        restore.pop();
      }
      expect((await compare(member.access_token)).accepted).toBe(true);
    };

    await change(
      () => db().oAuthClient.update({ where: { clientId }, data: { disabledAt: new Date() } }),
      () => db().oAuthClient.update({ where: { clientId }, data: { disabledAt: null } }),
      401,
      /disabled by an administrator/,
    );
    await change(
      () => db().person.update({ where: { id: personId }, data: { disabledAt: new Date() } }),
      () => db().person.update({ where: { id: personId }, data: { disabledAt: null } }),
      401,
      /account is disabled/,
    );
    await change(
      () => db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { status: 'deactivated' } }),
      () => db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { status: 'active' } }),
      403,
      /deactivated/,
    );
    await change(
      () => db().organization.update({ where: { id: orgId }, data: { planStatus: 'inactive' } }),
      () => db().organization.update({ where: { id: orgId }, data: { planStatus: 'active' } }),
      403,
      /plan is inactive/,
    );
    await change(
      () => db().grant.update({ where: { id: grantId }, data: { revokedAt: new Date() } }),
      () => db().grant.update({ where: { id: grantId }, data: { revokedAt: null } }),
      401,
      /revoked/,
    );
    await change(
      () => db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { role: 'admin' } }),
      () => db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { role: 'member' } }),
      null,
    );
    await change(
      () => db().toolRestriction.create({ data: { orgId, toolName: 'whoami' } }),
      () => db().toolRestriction.deleteMany({ where: { orgId } }),
      null,
    );
    // Decisions on the app: the org's and an instance admin's blocks, on the app itself or on another app
    // sharing a redirect host with it (written directly: what decideApp also revokes is not the point here).
    const { appId } = await db().oAuthClient.findUniqueOrThrow({ where: { clientId }, select: { appId: true } });
    const decision = (app: string, value: 'blocked' | 'approved') => db().orgAppDecision.create({ data: { orgId, appId: app, decision: value } });
    const undecide = () => db().orgAppDecision.deleteMany({ where: { orgId } });
    await change(() => decision(appId!, 'blocked'), undecide, 403, /Lookup Test is blocked in .* by an admin\.$/);
    const sibling = await db().app.create({ data: { key: `redirects:sibling-${randomBytes(4).toString('hex')}`, kind: 'redirects', displayName: 'Sibling', marks: ['host:lookup.example'] } });
    const stranger = await db().app.create({ data: { key: `redirects:stranger-${randomBytes(4).toString('hex')}`, kind: 'redirects', displayName: 'Stranger', marks: ['host:elsewhere.example'] } });
    await change(() => decision(sibling.id, 'blocked'), undecide, 403, /shares a redirect with Sibling/);
    await change(() => decision(stranger.id, 'blocked'), undecide, null);
    await change(
      () => db().app.update({ where: { id: sibling.id }, data: { blockedAt: new Date() } }),
      () => db().app.update({ where: { id: sibling.id }, data: { blockedAt: null } }),
      403,
      /blocked on this Gatehouse by an administrator \(it shares a redirect with Sibling/,
    );
    await change(
      () => db().organization.update({ where: { id: orgId }, data: { appPolicy: 'approved' } }),
      () => db().organization.update({ where: { id: orgId }, data: { appPolicy: 'open' } }),
      403,
      /allows only apps an admin approved/,
    );
    // Approving the sibling is not approving this app: approvals are narrow.
    await change(
      async () => {
        await db().organization.update({ where: { id: orgId }, data: { appPolicy: 'approved' } });
        await decision(sibling.id, 'approved');
      },
      async () => {
        await undecide();
        await db().organization.update({ where: { id: orgId }, data: { appPolicy: 'open' } });
      },
      403,
      /allows only apps an admin approved/,
    );
    await change(
      async () => {
        await db().organization.update({ where: { id: orgId }, data: { appPolicy: 'approved' } });
        await decision(appId!, 'approved');
      },
      async () => {
        await undecide();
        await db().organization.update({ where: { id: orgId }, data: { appPolicy: 'open' } });
      },
      null,
    );
    await db().app.deleteMany({ where: { id: { in: [sibling.id, stranger.id] } } });

    const membership = await db().membership.findUniqueOrThrow({ where: { personId_orgId: { personId, orgId } } });
    await change(
      () => db().membership.delete({ where: { id: membership.id } }),
      () => db().membership.create({ data: { ...membership } }),
      401,
      /no longer a member/,
    );
    expect(restore).toEqual([]);
  });

  it('sees a role change and a tool restriction in the caller it returns', async () => {
    await db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { role: 'viewer' } });
    await db().toolRestriction.create({ data: { orgId, toolName: 'list_members' } });
    try {
      const outcome = await compare(member.access_token);
      expect(outcome.accepted && [outcome.caller.role, [...outcome.caller.restrictedTools]]).toEqual(['viewer', ['list_members']]);
    } finally {
      await db().membership.update({ where: { personId_orgId: { personId, orgId } }, data: { role: 'member' } });
      await db().toolRestriction.deleteMany({ where: { orgId } });
    }
  });

  it('refuses every token of a grant once it is revoked, and a token whose grant row is gone', async () => {
    const orphan = await mintToken();
    const spare = await mintToken();
    await revokeGrant({ grantId, byPersonId: personId, reason: 'person' });
    for (const value of [member.access_token, orphan, spare]) await expectRefused(value);
    // A token row left behind by a grant that no longer exists at all (deleted, not revoked).
    const viewerRow = (await lookupAccess(viewer.access_token))!;
    await db().grant.delete({ where: { id: viewerRow.grant_id! } });
    expect(await expectRefused(viewer.access_token)).toMatch(/revoked/);
  });
});
