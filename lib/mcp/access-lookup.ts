// Everything one /mcp call needs to know about its caller, in one statement: the access token's row,
// and the grant, client, app, person, membership, organization, the org's tool restrictions and the
// decisions on the client's app it leads to (a block covers every app sharing a mark: lib/apps/decisions.ts);
// and, when a tools/call names a connector tool (in its small body, read first, or under 2026-07-28 in its
// Mcp-Name header: endpoint.ts), that tool (served.ts).
// One round trip instead of the provider's token lookup plus six reads in five (the hot path measured in
// docs/performance.md), and it reads the same rows every time: nothing here is cached across requests, so a
// revocation, a deactivation or a role change bites on the very next call, on any instance.
//
// The rows are only read here; deciding what they allow is caller.ts's job (callerFrom), so that the
// equivalence test can feed it the provider's own view of the same token and compare.
import { queryRows } from '@/lib/db/client';
import { calledToolSelect, type CalledToolRow } from '@/lib/connectors/served';
import { storageId } from '@/lib/oauth/adapter';

/** What the statement returns. Every column after the token's may be null: the joins are outer. */
export type AccessRow = {
  token_payload: Record<string, unknown>;
  token_expires_at: Date | null;
  token_consumed_at: Date | null;
  grant_id: string | null;
  grant_person_id: string | null;
  grant_org_id: string | null;
  grant_client_id: string | null;
  grant_scopes: string[] | null;
  grant_last_used_at: Date | null;
  grant_revoked_at: Date | null;
  client_name: string | null;
  client_disabled_at: Date | null;
  person_name: string | null;
  person_email: string | null;
  person_disabled_at: Date | null;
  org_name: string | null;
  org_plan_status: string | null;
  membership_role: string | null;
  membership_status: string | null;
  restricted_tools: string[] | null;
  /** The name of the client's app (lib/apps). */
  app_name: string | null;
  /**
   * An instance admin's block covering the client's app: '' when it is on the app itself, the name of the
   * blocked app when the block is on another app sharing a mark with it, null when there is none.
   */
  app_blocked_everywhere_by: string | null;
  /** The same for a block by the grant's org. */
  app_blocked_in_org_by: string | null;
  org_app_policy: string | null;
  /** Whether the grant's org approved the client's app itself (an approval covers only that app). */
  app_approved: boolean | null;
  /**
   * The connector tool the tools/call names (endpoint.ts), as served.ts reads it for the grant's org; null
   * when none was named or the org has no such tool switched on.
   */
  connector_tool: CalledToolRow | null;
};

// Outer joins so that a missing grant, client or membership is a refusal with a reason, not "no row".
// The membership is the grant's person's: caller.ts also checks that the token's account is that person.
const ACCESS_LOOKUP = {
  name: 'gatehouse_mcp_access_lookup',
  text: `
SELECT t.payload          AS token_payload,
       t.expires_at       AS token_expires_at,
       t.consumed_at      AS token_consumed_at,
       g.id               AS grant_id,
       g.person_id        AS grant_person_id,
       g.org_id           AS grant_org_id,
       g.client_id        AS grant_client_id,
       g.scopes           AS grant_scopes,
       g.last_used_at     AS grant_last_used_at,
       g.revoked_at       AS grant_revoked_at,
       c.name             AS client_name,
       c.disabled_at      AS client_disabled_at,
       p.name             AS person_name,
       p.email            AS person_email,
       p.disabled_at      AS person_disabled_at,
       o.name             AS org_name,
       o.plan_status::text AS org_plan_status,
       m.role::text       AS membership_role,
       m.status::text     AS membership_status,
       CASE WHEN g.org_id IS NULL THEN NULL
            ELSE ARRAY(SELECT r.tool_name FROM tool_restrictions r WHERE r.org_id = g.org_id) END AS restricted_tools,
       a.display_name     AS app_name,
       (SELECT CASE WHEN b.id = a.id THEN '' ELSE b.display_name END FROM apps b
         WHERE b.blocked_at IS NOT NULL AND (b.id = a.id OR b.marks && a.marks)
         ORDER BY b.id = a.id DESC, b.blocked_at LIMIT 1) AS app_blocked_everywhere_by,
       (SELECT CASE WHEN b.id = a.id THEN '' ELSE b.display_name END FROM org_app_decisions d JOIN apps b ON b.id = d.app_id
         WHERE d.org_id = g.org_id AND d.decision = 'blocked' AND (b.id = a.id OR b.marks && a.marks)
         ORDER BY b.id = a.id DESC, d.decided_at LIMIT 1) AS app_blocked_in_org_by,
       o.app_policy::text AS org_app_policy,
       EXISTS (SELECT 1 FROM org_app_decisions d
                WHERE d.org_id = g.org_id AND d.app_id = a.id AND d.decision = 'approved') AS app_approved,
       (SELECT row_to_json(tool) FROM (${calledToolSelect('g.org_id', '$2::text')}) tool) AS connector_tool
  FROM oidc_models t
  LEFT JOIN grants g        ON g.id = t.grant_id
  LEFT JOIN clients c       ON c.client_id = g.client_id
  LEFT JOIN apps a          ON a.id = c.app_id
  LEFT JOIN people p        ON p.id = g.person_id
  LEFT JOIN organizations o ON o.id = g.org_id
  LEFT JOIN memberships m   ON m.org_id = g.org_id AND m.person_id = g.person_id
 WHERE t.model = 'AccessToken' AND t.id = $1`,
};

/**
 * The rows behind an access token value, or null when no access token is stored under it; with them, the
 * connector tool `connectorTool` names, when given (a name that could be one: served.ts).
 */
export async function lookupAccess(tokenValue: string, connectorTool: string | null = null): Promise<AccessRow | null> {
  // Tokens are stored under their hash (adapter.ts): the value itself never reaches the database.
  const rows = await queryRows<AccessRow>(ACCESS_LOOKUP, [storageId('AccessToken', tokenValue), connectorTool]);
  return rows[0] ?? null;
}
