// Who is calling /mcp and what they may do, resolved afresh on every request (SPEC §6 steps 3–4):
// token → grant → client → person → membership → role → organization's plan. Nothing is cached: a
// revocation, a deactivation or a role change shows on the very next call.
import type Provider from 'oidc-provider';
import { permissionsOf, type Permission } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import type { Role } from '@/lib/generated/prisma/enums';
import { canonicalResource, mcpResource } from '@/lib/oauth/resource';
import { isMcpScope, type McpScope } from '@/lib/oauth/scopes';
import { JSON_RPC, McpError, type CallSubject } from './errors';
import { bearerChallenge } from './challenges';

export type Caller = {
  personId: string;
  personName: string;
  personEmail: string;
  orgId: string;
  orgName: string;
  role: Role;
  permissions: readonly Permission[];
  clientId: string;
  clientName: string | null;
  grantId: string;
  scopes: McpScope[];
  tokenExpiresAt: Date;
  grantLastUsedAt: Date | null;
};

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** Throws McpError 401 (with the challenge) or 403; returns the caller otherwise. */
export async function resolveCaller(provider: Provider, authorization: string | null): Promise<Caller> {
  if (!authorization) throw unauthorized(null);
  const match = BEARER.exec(authorization.trim());
  if (!match) throw unauthorized('invalid_token', 'The Authorization header must be "Bearer <access token>".');
  const token = await provider.AccessToken.find(match[1]!);
  if (!token || !token.grantId || !token.accountId || token.isExpired) {
    throw unauthorized('invalid_token', 'The access token is invalid or expired.');
  }
  const audience = Array.isArray(token.aud) ? token.aud : [token.aud];
  if (!audience.includes(canonicalResource(mcpResource()) as string)) {
    throw unauthorized('invalid_token', 'The access token was issued for another resource.');
  }

  const grant = await db().grant.findUnique({
    where: { id: token.grantId },
    include: { client: true, person: true, org: { include: { memberships: { where: { personId: token.accountId } } } } },
  });
  if (!grant) throw unauthorized('invalid_token', 'The connection was revoked.');
  // From here on a refusal is the org's business: its call log and charts count it.
  const subject: CallSubject = { personId: grant.personId, orgId: grant.orgId, clientId: grant.clientId, grantId: grant.id };
  if (grant.revokedAt) throw unauthorized('invalid_token', 'The connection was revoked.', subject);
  if (grant.client.disabledAt) throw unauthorized('invalid_token', 'This app was disabled by an administrator.', subject);
  if (grant.person.disabledAt) throw unauthorized('invalid_token', 'This account is disabled.', subject);

  const membership = grant.personId === token.accountId ? grant.org.memberships[0] : undefined;
  // Removal from the org revokes the person's grants there; a grant outliving its membership is dead too.
  if (!membership) throw unauthorized('invalid_token', `You are no longer a member of ${grant.org.name}.`, subject);
  if (membership.status !== 'active') {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `Your membership in ${grant.org.name} is deactivated. Ask an admin of ${grant.org.name} to reactivate it.`, 403, { subject });
  }
  if (grant.org.planStatus !== 'active') {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `${grant.org.name}'s plan is inactive. An owner of ${grant.org.name} can reactivate it.`, 403, { subject });
  }

  const granted = String(token.scope ?? '').split(' ').filter(isMcpScope);
  return {
    personId: grant.person.id,
    personName: grant.person.name,
    personEmail: grant.person.email,
    orgId: grant.org.id,
    orgName: grant.org.name,
    role: membership.role,
    permissions: permissionsOf(membership.role),
    clientId: grant.client.clientId,
    clientName: grant.client.name,
    grantId: grant.id,
    scopes: granted.filter((scope) => grant.scopes.includes(scope)),
    tokenExpiresAt: new Date((token.exp ?? 0) * 1000),
    grantLastUsedAt: grant.lastUsedAt,
  };
}

function unauthorized(error: 'invalid_token' | null, description?: string, subject?: CallSubject): McpError {
  return new McpError(JSON_RPC.UNAUTHORIZED, description ?? 'Authentication required: send an OAuth access token.', 401, {
    headers: { 'WWW-Authenticate': bearerChallenge(error ? { error, description } : {}) },
    subject,
  });
}
