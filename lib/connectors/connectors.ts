// Connectors (docs/connectors.md): an organization's own upstream MCP servers behind /mcp. This module holds
// what every connector change shares — the checks of its fields, the lookups, its audit event — and listing
// and removing; the catalog (catalog.ts), the credential (credentials.ts) and which orgs have it
// (availability.ts) have their own modules. The command line and the console call these, never the tables.
//
// Only instance admins create connectors: their URLs may point into a private network, and reaching
// internal servers is the point. A connector is off for every organization until switched on there.
import { type AuditEventType, type ChangedBy, recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { containsUnstorableText } from '@/lib/db/storable-text';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { Prisma } from '@/lib/generated/prisma/client';
import { type ClientCredentialsSummary, clientCredentialsOf, clientCredentialsSummary } from './client-credentials';
import { openHeaders } from './credentials';
import type { DefinitionProblem } from './definitions';
import { ConnectorError, printable } from './errors';

export const DEFAULT_TIMEOUT_MS = 30_000;

/** The URL of an upstream: absolute http(s), no credentials in it (they belong in a sealed header). */
export function connectorUrlProblem(url: string): string | null {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return 'The URL must be an absolute http:// or https:// URL.';
  if (parsed.username || parsed.password) return 'The URL must not carry a user name or password: give the credential as a header.';
  if (parsed.hash) return 'The URL must not have a #fragment.';
  if (url.length > 2048) return 'The URL is longer than 2048 characters.';
  return null;
}

export type ConnectorFields = { url: string; name: string; description: string; timeoutMs: number };

/** Checks the fields an admin sets (on adding and editing); returns them trimmed, or throws why not. */
export function checkConnectorFields(input: { url: string; name: string; description?: string; timeoutMs?: number }): ConnectorFields {
  const urlProblem = connectorUrlProblem(input.url);
  if (urlProblem) throw new ConnectorError(urlProblem);
  const name = input.name.trim();
  const description = (input.description ?? '').trim();
  if (!name || name.length > 100 || containsUnstorableText(name) || description.length > 1000 || containsUnstorableText(description)) {
    throw new ConnectorError('The name must be 1 to 100 characters and the description at most 1000, as storable text.');
  }
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > 300_000) throw new ConnectorError('The timeout must be between 1 and 300 seconds.');
  return { url: input.url, name, description, timeoutMs };
}

/** Removes a connector, its tools and its switches. */
export async function removeConnector(slug: string, by: ChangedBy): Promise<void> {
  await inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    await tx.connector.delete({ where: { id: connector.id } });
    await audit(tx, by, 'connector.removed', { slug, url: connector.url });
  });
}

export type ConnectorStatus = 'active' | 'disabled';

/**
 * Pauses or resumes a connector for the whole installation: a disabled connector's tools are left out of
 * every org's tools/list and refused when called (served.ts), its org switches kept for when it is resumed.
 * Returns whether anything changed.
 */
export async function setConnectorStatus(slug: string, status: ConnectorStatus, by: ChangedBy): Promise<boolean> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    if (connector.status === status) return false;
    await tx.connector.update({ where: { id: connector.id }, data: { status } });
    // An instance event (no org): the org-level switches are the same event types with the org named.
    await audit(tx, by, status === 'active' ? 'connector.enabled' : 'connector.disabled', { slug, scope: 'instance' });
    return true;
  });
}

export type ConnectorSummary = {
  id: string;
  slug: string;
  name: string;
  description: string;
  url: string;
  timeoutMs: number;
  status: string;
  /** Which kind of credential Gatehouse presents upstream (docs/connectors.md, Client credentials). */
  credentialKind: 'headers' | 'client_credentials' | 'none';
  /** How many credential headers, and their names; the values are sealed and never shown. */
  credentialHeaders: number;
  credentialHeaderNames: string[];
  /** The client credentials but their secret, which is sealed and never shown. */
  clientCredentials: ClientCredentialsSummary | null;
  tools: { name: string; exposedName: string; status: string; holdReason: string | null; scopeOverride: string | null }[];
  problems: DefinitionProblem[];
  /** Offered to every organization, or only to `offeredTo`. */
  offeredToAll: boolean;
  offeredTo: string[];
  /** The organizations it is switched on for. */
  orgs: string[];
  lastRefreshedAt: Date | null;
  lastRefreshError: string | null;
};

/** One connector as listConnectors describes it, or null when there is none with that slug. */
export async function connectorSummary(slug: string): Promise<ConnectorSummary | null> {
  return (await listConnectors({ slug }))[0] ?? null;
}

export async function listConnectors(where: { slug?: string } = {}): Promise<ConnectorSummary[]> {
  const connectors = await db().connector.findMany({
    where,
    include: {
      tools: { orderBy: { upstreamName: 'asc' } },
      orgs: { include: { org: { select: { slug: true } } } },
      offers: { include: { org: { select: { slug: true } } } },
    },
    orderBy: { slug: 'asc' },
  });
  return connectors.map((connector) => {
    const credentialHeaderNames = Object.keys(openHeaders(connector.credentialSealed));
    const credentialHeaders = credentialHeaderNames.length;
    const clientCredentials = clientCredentialsOf(connector);
    return {
      id: connector.id,
      slug: connector.slug,
      name: connector.name,
      description: connector.description,
      url: connector.url,
      timeoutMs: connector.timeoutMs,
      status: connector.status,
      credentialKind: clientCredentials ? 'client_credentials' : credentialHeaders ? 'headers' : 'none',
      credentialHeaders,
      credentialHeaderNames,
      clientCredentials: clientCredentials && clientCredentialsSummary(clientCredentials),
      tools: connector.tools.map((tool) => ({ name: tool.upstreamName, exposedName: tool.exposedName, status: tool.status, holdReason: tool.holdReason, scopeOverride: tool.scopeOverride })),
      problems: Array.isArray(connector.problems) ? (connector.problems as DefinitionProblem[]) : [],
      offeredToAll: connector.offeredToAll,
      offeredTo: connector.offers.map((entry) => entry.org.slug).sort(),
      orgs: connector.orgs.map((entry) => entry.org.slug).sort(),
      lastRefreshedAt: connector.lastRefreshedAt,
      lastRefreshError: connector.lastRefreshError,
    };
  });
}

export async function connectorBySlug(tx: Tx, slug: string) {
  const connector = await tx.connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${printable(slug)}".`);
  return connector;
}

export async function orgsBySlug(slugs: string[], tx: Tx = db()) {
  const orgs = await tx.organization.findMany({ where: { slug: { in: slugs } }, select: { id: true, slug: true } });
  const missing = slugs.filter((slug) => !orgs.some((org) => org.slug === slug));
  if (missing.length) throw new ConnectorError(`There is no organization ${missing.map((slug) => `"${printable(slug)}"`).join(', ')}.`);
  return orgs;
}

type ConnectorEvent = Extract<AuditEventType, `connector.${string}`>;

/** The audit event of a connector change, in the change's transaction; `orgId` when it concerns one org. */
export function audit(tx: Tx, by: ChangedBy, type: ConnectorEvent, data: Prisma.InputJsonObject, orgId: string | null = null): Promise<void> {
  return recordAudit({ type, orgId, actorPersonId: by.actorPersonId, ip: by.ip, data: { ...data, via: by.via } }, tx);
}
