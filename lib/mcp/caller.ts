// Who is calling /mcp and what they may do, resolved afresh on every request (docs/protocol.md §6 steps 3–4):
// token → grant → client → person → membership → role → organization's plan (and the org's tool
// restrictions). Nothing is cached: a revocation, a deactivation or a role change shows on the very next
// call. The rows come from one statement (access-lookup.ts); what they allow is decided here.
import { permissionsOf, type Permission } from '@/lib/auth/permissions';
import { calledToolOf, couldBeConnectorTool, type CalledConnectorTool } from '@/lib/connectors/served';
import type { Role } from '@/lib/generated/prisma/enums';
import { CLOCK_TOLERANCE_SECONDS } from '@/lib/oauth/provider';
import { canonicalResource, mcpResource } from '@/lib/oauth/resource';
import { isMcpScope, type McpScope } from '@/lib/oauth/scopes';
import { lookupAccess, type AccessRow } from './access-lookup';
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
  /** Tools an admin of the org switched off, read with the token. */
  restrictedTools: ReadonlySet<string>;
  tokenExpiresAt: Date;
  grantLastUsedAt: Date | null;
};

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** The access token value of an Authorization header; throws the 401 challenge when there is none. */
export function bearerToken(authorization: string | null): string {
  if (!authorization) throw unauthorized(null);
  const match = BEARER.exec(authorization.trim());
  if (!match) throw unauthorized('invalid_token', 'The Authorization header must be "Bearer <access token>".');
  return match[1]!;
}

/** A connector tool read with the caller, by the name its small body or its Mcp-Name header gave (endpoint.ts). */
export type NamedConnectorTool = { name: string; tool: CalledConnectorTool | null };

/**
 * Throws McpError 401 (with the challenge) or 403; returns the caller otherwise. With `connectorTool` (the
 * name a tools/call gave in its small body or its Mcp-Name header: endpoint.ts), that tool is read in the
 * same statement, so a call to it makes no second round trip.
 */
export async function resolveCaller(authorization: string | null, connectorTool: string | null = null): Promise<{ caller: Caller; named: NamedConnectorTool | null }> {
  const name = connectorTool !== null && couldBeConnectorTool(connectorTool) ? connectorTool : null;
  const row = await lookupAccess(bearerToken(authorization), name);
  const caller = callerFrom(row);
  return { caller, named: name === null ? null : { name, tool: row?.connector_tool ? calledToolOf(row.connector_tool) : null } };
}

/**
 * The decision, from the rows alone. The token checks are the provider's own (BaseModel.find with its
 * adapter, and AccessToken.isExpired): a stored row that has not expired, a payload whose exp lies ahead,
 * issued for this resource; on top, a consumed token is spent, whatever the provider would say.
 */
export function callerFrom(row: AccessRow | null, now = Date.now()): Caller {
  const payload = row?.token_payload;
  if (!row || !payload || !isLiveTokenPayload(payload, row, now)) throw unauthorized('invalid_token', 'The access token is invalid or expired.');
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audience.includes(canonicalResource(mcpResource()))) {
    throw unauthorized('invalid_token', 'The access token was issued for another resource.');
  }
  if (!row.grant_id || !row.grant_person_id || !row.grant_org_id || !row.grant_client_id) {
    throw unauthorized('invalid_token', 'The connection was revoked.');
  }
  // From here on a refusal is the org's business: its call log and charts count it.
  const subject: CallSubject = { personId: row.grant_person_id, orgId: row.grant_org_id, clientId: row.grant_client_id, grantId: row.grant_id };
  const orgName = row.org_name ?? 'the organization';
  if (row.grant_revoked_at) throw unauthorized('invalid_token', 'The connection was revoked.', subject);
  if (row.client_disabled_at) throw unauthorized('invalid_token', 'This app was disabled by an administrator.', subject);
  if (row.person_disabled_at) throw unauthorized('invalid_token', 'This account is disabled.', subject);
  // Removal from the org revokes the person's grants there; a grant outliving its membership is dead too.
  if (!row.membership_role || payload.accountId !== row.grant_person_id) {
    throw unauthorized('invalid_token', `You are no longer a member of ${orgName}.`, subject);
  }
  if (row.membership_status !== 'active') {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `Your membership in ${orgName} is deactivated. Ask an admin of ${orgName} to reactivate it.`, 403, { subject });
  }
  if (row.org_plan_status !== 'active') {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `${orgName}'s plan is inactive. An owner of ${orgName} can reactivate it.`, 403, { subject });
  }
  // Decisions on the app, read with the token like everything else: a block made while this grant was
  // being approved, or on another app sharing a redirect host, bites here even if no revocation reached it.
  const appName = row.app_name ?? row.client_name ?? 'This app';
  if (row.app_blocked_everywhere_by !== null && row.app_blocked_everywhere_by !== undefined) {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `${appName} is blocked on this Gatehouse by an administrator${blockedVia(row.app_blocked_everywhere_by)}.`, 403, { subject });
  }
  if (row.app_blocked_in_org_by !== null && row.app_blocked_in_org_by !== undefined) {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `${appName} is blocked in ${orgName} by an admin${blockedVia(row.app_blocked_in_org_by)}.`, 403, { subject });
  }
  if (row.org_app_policy === 'approved' && !row.app_approved) {
    throw new McpError(JSON_RPC.UNAUTHORIZED, `${orgName} allows only apps an admin approved, and ${appName} is not one. Ask an admin of ${orgName} to approve it.`, 403, { subject });
  }

  const role = row.membership_role as Role;
  const grantScopes = row.grant_scopes ?? [];
  return {
    personId: row.grant_person_id,
    personName: row.person_name ?? '',
    personEmail: row.person_email ?? '',
    orgId: row.grant_org_id,
    orgName,
    role,
    permissions: permissionsOf(role),
    clientId: row.grant_client_id,
    clientName: row.client_name,
    grantId: row.grant_id,
    scopes: String(payload.scope ?? '')
      .split(' ')
      .filter(isMcpScope)
      .filter((scope) => grantScopes.includes(scope)),
    restrictedTools: new Set(row.restricted_tools ?? []),
    tokenExpiresAt: new Date((payload.exp as number) * 1000),
    grantLastUsedAt: row.grant_last_used_at,
  };
}

/** Names the blocked app when the block was put on another app sharing a mark ('' when on this one). */
function blockedVia(blockedApp: string): string {
  return blockedApp === '' ? '' : ` (it shares a redirect with ${blockedApp}, which is blocked)`;
}

function isLiveTokenPayload(payload: Record<string, unknown>, row: AccessRow, now: number): boolean {
  if (typeof payload !== 'object' || Array.isArray(payload)) return false;
  const seconds = Math.floor(now / 1000);
  // The adapter's expiry (the row's) and the token's own (exp, no leeway: AccessToken.isExpired).
  if (row.token_expires_at && row.token_expires_at.getTime() <= now) return false;
  if (typeof payload.exp !== 'number' || payload.exp <= seconds) return false;
  if (payload.iat !== undefined && typeof payload.iat !== 'number') return false;
  if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > seconds + CLOCK_TOLERANCE_SECONDS)) return false;
  if (payload.aud !== undefined && typeof payload.aud !== 'string' && !(Array.isArray(payload.aud) && payload.aud.every((aud) => typeof aud === 'string'))) {
    return false;
  }
  if (row.token_consumed_at) return false;
  // Only opaque Bearer tokens are issued (no DPoP, no mTLS binding, never bound to a browser session:
  // provider.ts); a token claiming otherwise was not issued by this configuration.
  if ('jwt' in payload || 'jwt-ietf' in payload || 'paseto' in payload || ('format' in payload && payload.format !== 'opaque')) return false;
  if (payload.jkt || payload['x5t#S256'] || payload.expiresWithSession) return false;
  return typeof payload.grantId === 'string' && typeof payload.accountId === 'string';
}

function unauthorized(error: 'invalid_token' | null, description?: string, subject?: CallSubject): McpError {
  return new McpError(JSON_RPC.UNAUTHORIZED, description ?? 'Authentication required: send an OAuth access token.', 401, {
    headers: { 'WWW-Authenticate': bearerChallenge(error ? { error, description } : {}) },
    subject,
  });
}
