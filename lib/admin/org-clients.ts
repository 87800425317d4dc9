// The clients an org has seen (docs/protocol.md §7), under their apps with the org's decisions on them
// (lib/apps/decisions.ts decides and says what a decision covers), the org's app policy, and confidential
// clients an owner registers by hand.
import { randomBytes } from 'node:crypto';
import type { ClientMetadata } from 'oidc-provider';
import { type AppGroup, appIdentity, appSummaries, assignApp, emptyGroup, groupByApp } from '@/lib/apps/apps';
import { alsoCoveredBy, approveOwnApp, decidedAppIds, type OrgAppStanding, orgAppStandings, unapprovedGrantsWhere } from '@/lib/apps/decisions';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { AppPolicy, ClientRegistration } from '@/lib/generated/prisma/enums';
import { PrismaAdapter } from '@/lib/oauth/adapter';
import { redirectHostname, redirectUrisOf } from '@/lib/oauth/clients';
import { revokeGrantsWhere } from '@/lib/grants/revoke';
import { oauthProvider } from '@/lib/oauth/provider';
import { InvalidRegistration } from '@/lib/oauth/errors';
import { classifyRedirectUri, refuseInvisibleCharacters } from '@/lib/oauth/registration';
import type { OrgAdmin } from './access';
import { invalid } from './errors';

export type OrgClientRow = {
  clientId: string;
  /** The app the registration belongs to (lib/apps); null until start-up assigns one. */
  appId: string | null;
  name: string;
  registration: ClientRegistration;
  redirectUris: string[];
  hostname: string | null;
  firstSeenAt: Date;
  lastUsedAt: Date | null;
  liveGrants: number;
  disabled: boolean;
  ownedByOrg: boolean;
};

/** Clients with a grant (live or not) in the org, or registered by its owner. */
export async function orgClients(orgId: string): Promise<OrgClientRow[]> {
  const clients = await db().oAuthClient.findMany({
    where: { OR: [{ grants: { some: { orgId } } }, { ownerOrgId: orgId }] },
    include: {
      grants: { where: { orgId }, select: { revokedAt: true, lastUsedAt: true } },
    },
    orderBy: { firstSeenAt: 'desc' },
    take: 500,
  });
  const redirects = await redirectUrisOf(clients.map((client) => client.clientId));
  return clients.map((client) => {
    const lastUsed = client.grants.map((grant) => grant.lastUsedAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return {
      clientId: client.clientId,
      appId: client.appId,
      name: client.name ?? client.clientId,
      registration: client.registration,
      redirectUris: redirects.get(client.clientId) ?? [],
      hostname: client.hostname,
      firstSeenAt: client.firstSeenAt,
      lastUsedAt: lastUsed ? new Date(lastUsed) : null,
      liveGrants: client.grants.filter((grant) => !grant.revokedAt).length,
      disabled: Boolean(client.disabledAt),
      ownedByOrg: client.ownerOrgId === orgId,
    };
  });
}

/** An app on the org's Clients page: its registrations in the org and where it stands there. */
export type OrgClientApp = AppGroup<OrgClientRow> & {
  /** null for registrations start-up has not grouped yet: no decision can be made on them until it has. */
  standing: OrgAppStanding | null;
  /** Loopback-only apps have no redirect host to match a block on: renaming makes another app. */
  matchedByNameOnly: boolean;
  /** Other apps of the installation a block on this one would cover too (they share a redirect host or scheme). */
  alsoCovers: string[];
};

/**
 * The org's clients grouped under their apps, then the apps the org decided on that nobody in it has
 * registered (blocked or approved ahead). What an app shows is the org's own: its name is that of the
 * org's newest registration of it, and its count and first and last seen are over the registrations the
 * org has seen — never how many other organizations' people registered it. Only the evidence (the hosts,
 * schemes or document URL every registration of the app shares) comes from the app itself.
 */
export async function orgClientApps(orgId: string): Promise<OrgClientApp[]> {
  const rows = await orgClients(orgId);
  const decided = await decidedAppIds(orgId);
  const summaries = await appSummaries([...rows.map((row) => row.appId), ...decided]);
  const groups: AppGroup<OrgClientRow>[] = groupByApp(rows, summaries).map((group) => {
    const seen = group.registrations.map((row) => row.firstSeenAt.getTime());
    const used = group.registrations.map((row) => Math.max(row.firstSeenAt.getTime(), row.lastUsedAt?.getTime() ?? 0));
    return {
      ...group,
      name: group.registrations[0]!.name,
      firstSeenAt: new Date(Math.min(...seen)),
      lastSeenAt: new Date(Math.max(...used)),
      registrationCount: group.registrations.length,
    };
  });
  const listed = new Set(groups.map((group) => group.appId));
  for (const summary of summaries) {
    if (listed.has(summary.id)) continue;
    groups.push({ ...emptyGroup(summary), registrationCount: 0 });
  }
  const appIds = groups.flatMap((group) => (group.appId ? [group.appId] : []));
  const [standings, covers] = await Promise.all([orgAppStandings(orgId, appIds), alsoCoveredBy(appIds)]);
  return groups.map((group) => ({
    ...group,
    standing: group.appId ? (standings.get(group.appId) ?? null) : null,
    matchedByNameOnly: group.kind === 'loopback',
    alsoCovers: group.appId ? (covers.get(group.appId) ?? []) : [],
  }));
}

/** How many live connections a switch to "approved apps only" would end: those of apps not approved. */
export function unapprovedConnections(orgId: string): Promise<number> {
  return db().grant.count({ where: unapprovedGrantsWhere(orgId) });
}

/**
 * Sets the org's app policy. "Approved apps only" applies to what is already connected too: the live
 * grants of apps not approved are revoked with it (the page says how many before asking).
 */
export async function setAppPolicy(admin: OrgAdmin, policy: AppPolicy, ip: string): Promise<{ revoked: number }> {
  return inTransaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: admin.org.id }, select: { appPolicy: true } });
    if (before.appPolicy === policy) return { revoked: 0 };
    await tx.organization.update({ where: { id: admin.org.id }, data: { appPolicy: policy } });
    let revoked = 0;
    if (policy === 'approved') {
      const unapproved = await tx.grant.findMany({
        where: unapprovedGrantsWhere(admin.org.id),
        select: { clientId: true },
        distinct: ['clientId'],
      });
      for (const { clientId } of unapproved) {
        revoked += await revokeGrantsWhere({ clientId, orgId: admin.org.id }, { byPersonId: admin.personId, reason: 'org_admin', ip });
      }
    }
    await recordAudit({ type: 'org.app_policy_changed', orgId: admin.org.id, actorPersonId: admin.personId, ip, data: { from: before.appPolicy, to: policy, revokedGrants: revoked } }, tx);
    return { revoked };
  });
}

export type RegisteredClient = { clientId: string; clientSecret: string; name: string; redirectUris: string[] };

/**
 * An owner registers a confidential client for the org (client_secret_basic). The secret is returned
 * once; only its hash is stored (see client-secrets.ts). The client is approved for the org.
 */
export async function registerConfidentialClient(admin: OrgAdmin, input: { name: string; redirectUris: string[] }, ip: string): Promise<RegisteredClient> {
  // The redirect-URI and text rules of self-registration (registration.ts) hold for hand-registered clients too.
  try {
    input.redirectUris.forEach(classifyRedirectUri);
    refuseInvisibleCharacters({ client_name: input.name });
  } catch (error) {
    if (error instanceof InvalidRegistration) throw invalid(`This client cannot be registered: ${error.description}.`);
    throw error;
  }
  const provider = await oauthProvider();
  const clientId = `gh_${randomBytes(16).toString('base64url')}`;
  const clientSecret = randomBytes(32).toString('base64url');
  const metadata: ClientMetadata = {
    client_id: clientId,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: input.name,
    redirect_uris: input.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  };
  try {
    await provider.Client.validate(metadata); // the provider's own rules for redirect URIs and metadata
  } catch (error) {
    const description = (error as { error_description?: string }).error_description ?? 'the client metadata is not valid';
    throw invalid(`This client cannot be registered: ${description}.`);
  }
  await inTransaction(async (tx) => {
    await new PrismaAdapter('Client').upsert(clientId, metadata);
    await tx.oAuthClient.create({
      data: { clientId, registration: 'admin', name: input.name, hostname: redirectHostname(input.redirectUris), registeredIp: ip, ownerOrgId: admin.org.id },
    });
    const appId = await assignApp(clientId, appIdentity({ client_id: clientId, registration: 'admin', client_name: input.name, redirect_uris: input.redirectUris }));
    await approveOwnApp(tx, admin.org.id, appId, admin.personId);
    await recordAudit({ type: 'client.registered', orgId: admin.org.id, actorPersonId: admin.personId, clientId, ip, data: { name: input.name, redirectUris: input.redirectUris, via: 'admin' } }, tx);
  });
  return { clientId, clientSecret, name: input.name, redirectUris: input.redirectUris };
}
