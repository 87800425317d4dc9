// What /mcp offers of connectors (docs/connectors.md): the tools of every connector an organization switched
// on, read from the stored catalog, never from an upstream, on the request that needs them. Nothing is cached
// across requests: a connector switched off, a tool held or approved shows on the very next call, on every
// instance. Both reads are keyed by the caller's organization (from its grant), so a grant reaches only the
// connectors of the organization it was given in.
import { queryRows } from '@/lib/db/client';
import { clientCredentialsOf, type SealedClientCredentials } from './client-credentials';
import { requiredScope, type ToolDefinition, type ToolScope } from './definitions';

/** A connector tool as /mcp lists it: its exposed name, its pinned definition and the scope it needs. */
export type ListedConnectorTool = { exposedName: string; definition: ToolDefinition; scope: ToolScope };

/** A connector tool a caller named, with what is needed to gate it and to forward the call. */
export type CalledConnectorTool = {
  exposedName: string;
  upstreamName: string;
  /** Held for review: a new or changed definition waits for an instance admin (pinning.ts). */
  held: boolean;
  /** The pinned definition, or for a tool never approved, the one waiting. */
  definition: ToolDefinition | null;
  scope: ToolScope;
  connector: ConnectorEndpoint;
};

/** Where and how Gatehouse reaches a connector's upstream. */
export type ConnectorEndpoint = {
  id: string;
  slug: string;
  name: string;
  url: string;
  timeoutMs: number;
  /** The sealed header credential (credentials.ts opens it for the call); null when there is none. */
  credentialSealed: string | null;
  /** Or the client credentials Gatehouse gets an access token with (upstream-auth.ts), the secret sealed. */
  clientCredentials: SealedClientCredentials | null;
};

const LISTED = {
  name: 'gatehouse_connector_tools_listed',
  text: `
SELECT t.exposed_name AS exposed_name, t.pinned AS definition, t.scope_override AS scope_override
  FROM org_connectors oc
  JOIN connectors c      ON c.id = oc.connector_id
  JOIN connector_tools t ON t.connector_id = c.id
 WHERE oc.org_id = $1 AND c.status = 'active' AND t.status = 'active' AND t.pinned IS NOT NULL
 ORDER BY c.slug, t.upstream_name`,
};

/** The offered tools of the connectors the organization switched on, in tools/list order. */
export async function listedConnectorTools(orgId: string): Promise<ListedConnectorTool[]> {
  const rows = await queryRows<{ exposed_name: string; definition: ToolDefinition; scope_override: string | null }>(LISTED, [orgId]);
  return rows.map((row) => ({ exposedName: row.exposed_name, definition: row.definition, scope: requiredScope(row.definition, row.scope_override) }));
}

/**
 * The connector tool of exposed name `name` when its connector is on for organization `orgId` (both SQL
 * expressions), as a SELECT. Shared with /mcp's caller lookup (access-lookup.ts), which reads the tool a
 * 2026-07-28 request names in its headers in the same statement: one text, so the two reads cannot differ.
 */
export function calledToolSelect(orgId: string, name: string): string {
  return `
SELECT ct.exposed_name, ct.upstream_name, ct.status AS tool_status, COALESCE(ct.pinned, ct.held) AS definition, ct.scope_override,
       cn.id, cn.slug, cn.name, cn.url, cn.timeout_ms, cn.credential_sealed,
       cn.token_url, cn.token_client_id, cn.token_client_secret_sealed, cn.token_client_auth, cn.token_scope, cn.token_resource
  FROM connector_tools ct
  JOIN connectors cn      ON cn.id = ct.connector_id
  JOIN org_connectors oco ON oco.connector_id = cn.id AND oco.org_id = ${orgId}
 WHERE ct.exposed_name = ${name} AND cn.status = 'active'`;
}

const CALLED = { name: 'gatehouse_connector_tool_called', text: calledToolSelect('$1', '$2') };

/** A row of calledToolSelect. */
export type CalledToolRow = {
  exposed_name: string;
  upstream_name: string;
  tool_status: string;
  definition: ToolDefinition | null;
  scope_override: string | null;
  id: string;
  slug: string;
  name: string;
  url: string;
  timeout_ms: number;
  credential_sealed: string | null;
  token_url: string | null;
  token_client_id: string | null;
  token_client_secret_sealed: string | null;
  token_client_auth: string | null;
  token_scope: string | null;
  token_resource: string | null;
};

/** Only names that could be a connector tool's (`<slug>__<tool>`, at most 64 characters) reach the database. */
export function couldBeConnectorTool(name: string): boolean {
  return name.includes('__') && name.length <= 64;
}

/**
 * The connector tool of that exposed name, when its connector is switched on for the organization; null
 * when there is none (an unknown tool, to the caller: whether another organization has it is not its business).
 */
export async function calledConnectorTool(orgId: string, exposedName: string): Promise<CalledConnectorTool | null> {
  if (!couldBeConnectorTool(exposedName)) return null;
  const [row] = await queryRows<CalledToolRow>(CALLED, [orgId, exposedName]);
  return row ? calledToolOf(row) : null;
}

/** The row read as a tool to gate and forward. */
export function calledToolOf(row: CalledToolRow): CalledConnectorTool {
  return {
    exposedName: row.exposed_name,
    upstreamName: row.upstream_name,
    held: row.tool_status !== 'active',
    definition: row.definition,
    // A tool whose definition could not be read at all counts as one that writes: the stricter scope.
    scope: requiredScope({ annotations: row.definition?.annotations ?? null }, row.scope_override),
    connector: {
      id: row.id,
      slug: row.slug,
      name: row.name,
      url: row.url,
      timeoutMs: row.timeout_ms,
      credentialSealed: row.credential_sealed,
      clientCredentials: clientCredentialsOf({
        tokenUrl: row.token_url,
        tokenClientId: row.token_client_id,
        tokenClientSecretSealed: row.token_client_secret_sealed,
        tokenClientAuth: row.token_client_auth,
        tokenScope: row.token_scope,
        tokenResource: row.token_resource,
      }),
    },
  };
}
