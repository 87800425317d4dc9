// Connectors (docs/connectors.md): the one home of adding, listing, switching on and off, refreshing and
// removing an organization's upstream MCP servers, and of approving their held tools. The command line
// (lib/cli/connectors.ts) calls these; the console will too.
//
// Only instance admins' tooling creates connectors: their URLs may point into a private network, and
// reaching internal servers is the point. A connector is off for every organization until enabled there.
// Upstream catalogs are read before any transaction opens (upstream.ts); every change is an audit event.
import { type AuditEventType, recordAudit } from '@/lib/audit/events';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { containsUnstorableText } from '@/lib/db/storable-text';
import type { Prisma } from '@/lib/generated/prisma/client';
import { env } from '@/lib/env';
import { connectorSlugProblem, type DefinitionProblem, definitionHash, exposedToolName, readToolDefinition, type ToolDefinition } from './definitions';
import { planCatalog, type StoredTool } from './pinning';
import { listUpstreamTools, type UpstreamTarget } from './upstream';

/** A refusal of a connector command, in words for the admin. */
export class ConnectorError extends Error {}

const CREDENTIAL_PURPOSE = 'connector-credentials';
export const DEFAULT_TIMEOUT_MS = 30_000;

// Headers Gatehouse sets itself, or that would change what the request is: never taken from an admin.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'cookie',
  // Set by Gatehouse on each call: an admin's header must not stand in for it.
  'gatehouse-identity',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** `Name: value` lines (as given to --header) as headers, or the reason they cannot be used. */
export function parseCredentialHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (!HEADER_NAME.test(name)) throw new ConnectorError(`"${printable(line.slice(0, 40))}" is not a header: write it as "Name: value".`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new ConnectorError(`The ${name} header is set by Gatehouse itself and cannot be given.`);
    // RFC 9110 §5.5: field values are visible ASCII, spaces and tabs; no CR, LF or NUL to split a request with.
    if (!value || !/^[\t\x20-\x7e]{1,4096}$/.test(value)) throw new ConnectorError(`The value of the ${name} header must be 1 to 4096 printable ASCII characters.`);
    if (Object.keys(headers).some((known) => known.toLowerCase() === name.toLowerCase())) throw new ConnectorError(`The ${name} header is given twice.`);
    headers[name] = value;
  }
  return headers;
}

function credentialKey(secret = env().authSecret): Buffer {
  return deriveKey(secret, CREDENTIAL_PURPOSE);
}

function sealHeaders(headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? seal(credentialKey(), JSON.stringify(headers)) : null;
}

/** The upstream credential of a connector, opened for a call. Never logged, printed or returned by a command. */
export function openHeaders(sealed: string | null): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(unseal(credentialKey(), sealed)) as Record<string, string>;
}

/** The URL of an upstream: absolute http(s), no credentials in it (they belong in a sealed header). */
export function connectorUrlProblem(url: string): string | null {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return 'The URL must be an absolute http:// or https:// URL.';
  if (parsed.username || parsed.password) return 'The URL must not carry a user name or password: pass the credential with --header.';
  if (parsed.hash) return 'The URL must not have a #fragment.';
  if (url.length > 2048) return 'The URL is longer than 2048 characters.';
  return null;
}

function target(connector: { url: string; credentialSealed: string | null; timeoutMs: number }): UpstreamTarget {
  return { url: connector.url, headers: openHeaders(connector.credentialSealed), timeoutMs: connector.timeoutMs };
}

/** The upstream's catalog, each tool read and checked (a bad one is named, the rest kept). */
async function readCatalog(upstream: UpstreamTarget): Promise<(ToolDefinition | DefinitionProblem)[]> {
  return (await listUpstreamTools(upstream)).map(readToolDefinition);
}

export type AddConnector = { slug: string; url: string; name?: string; description?: string; headers?: string[]; orgs?: string[]; timeoutMs?: number };

/** Adds a connector: reads its catalog first (nothing is stored if that fails), pins it, enables it for `orgs`. */
export async function addConnector(input: AddConnector): Promise<{ slug: string; tools: number; problems: DefinitionProblem[] }> {
  const slugProblem = connectorSlugProblem(input.slug);
  if (slugProblem) throw new ConnectorError(slugProblem);
  const urlProblem = connectorUrlProblem(input.url);
  if (urlProblem) throw new ConnectorError(urlProblem);
  const name = (input.name ?? input.slug).trim();
  const description = (input.description ?? '').trim();
  if (!name || name.length > 100 || containsUnstorableText(name) || description.length > 1000 || containsUnstorableText(description)) {
    throw new ConnectorError('The name must be 1 to 100 characters and the description at most 1000, as storable text.');
  }
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > 300_000) throw new ConnectorError('The timeout must be between 1 and 300 seconds.');
  const headers = parseCredentialHeaders(input.headers ?? []);
  if (await db().connector.findUnique({ where: { slug: input.slug }, select: { id: true } })) throw new ConnectorError(`A connector "${input.slug}" already exists.`);
  const orgs = await orgsBySlug(input.orgs ?? []);

  const catalog = await readCatalog({ url: input.url, headers, timeoutMs });
  const change = planCatalog(input.slug, [], catalog, true);
  return inTransaction(async (tx) => {
    const connector = await tx.connector.create({
      data: { slug: input.slug, name, description, url: input.url, timeoutMs, credentialSealed: sealHeaders(headers), problems: change.problems, lastRefreshedAt: new Date() },
    });
    for (const definition of change.pin) await tx.connectorTool.create({ data: toolRow(connector.id, input.slug, definition, 'active') });
    for (const org of orgs) await tx.orgConnector.create({ data: { orgId: org.id, connectorId: connector.id } });
    await audit(tx, 'connector.added', {
      slug: input.slug,
      url: input.url,
      tools: change.pin.map((tool) => tool.name),
      problems: change.problems,
      headers: Object.keys(headers), // names only: never the values
      orgs: orgs.map((org) => org.slug),
    });
    for (const org of orgs) await audit(tx, 'connector.enabled', { slug: input.slug, org: org.slug }, org.id);
    return { slug: input.slug, tools: change.pin.length, problems: change.problems };
  });
}

function toolRow(connectorId: string, slug: string, definition: ToolDefinition, status: 'active' | 'held', holdReason: string | null = null) {
  const json = definition as unknown as Prisma.InputJsonValue;
  const hash = definitionHash(definition);
  return {
    connectorId,
    upstreamName: definition.name,
    exposedName: exposedToolName(slug, definition.name)!,
    status,
    holdReason,
    pinned: status === 'active' ? json : undefined,
    pinnedHash: status === 'active' ? hash : null,
    held: status === 'held' ? json : undefined,
    heldHash: status === 'held' ? hash : null,
  };
}

export type RefreshOutcome = { slug: string; ok: true; held: string[]; released: string[]; removed: string[]; problems: DefinitionProblem[] } | { slug: string; ok: false; error: string };

/**
 * Reads the connector's catalog again and applies what pinning allows. A read that fails, or returns no
 * tool at all, changes nothing but the connector's last error.
 */
export async function refreshConnector(slug: string): Promise<RefreshOutcome> {
  const connector = await db().connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${slug}".`);
  let catalog: (ToolDefinition | DefinitionProblem)[];
  try {
    catalog = await readCatalog(target(connector));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await db().connector.update({ where: { id: connector.id }, data: { lastRefreshError: message } });
    return { slug, ok: false, error: message };
  }
  if (catalog.length === 0) {
    const message = 'the upstream listed no tools: nothing was changed';
    await db().connector.update({ where: { id: connector.id }, data: { lastRefreshError: message } });
    return { slug, ok: false, error: message };
  }
  return inTransaction(async (tx) => {
    const stored = await tx.connectorTool.findMany({ where: { connectorId: connector.id } });
    const change = planCatalog(
      slug,
      stored.map((tool): StoredTool => ({ name: tool.upstreamName, pinnedHash: tool.pinnedHash, heldHash: tool.heldHash })),
      catalog,
      false,
    );
    for (const { definition, reason } of change.hold) {
      const row = toolRow(connector.id, slug, definition, 'held', reason);
      const before = stored.find((tool) => tool.upstreamName === definition.name);
      await tx.connectorTool.upsert({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: definition.name } },
        create: row,
        update: { status: 'held', holdReason: reason, held: row.held, heldHash: row.heldHash },
      });
      await audit(tx, 'connector.tool_held', { slug, tool: definition.name, reason, before: (before?.pinned ?? null) as Prisma.InputJsonValue, after: row.held! });
    }
    for (const name of change.release) {
      await tx.connectorTool.update({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } },
        data: { status: 'active', holdReason: null, held: undefined, heldHash: null },
      });
      await audit(tx, 'connector.tool_released', { slug, tool: name });
    }
    for (const name of change.withdraw) {
      await tx.connectorTool.update({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } }, data: { status: 'held', holdReason: 'invalid', heldHash: null } });
      await audit(tx, 'connector.tool_held', { slug, tool: name, reason: 'invalid', problem: change.problems.find((problem) => problem.name === name)?.problem ?? '' });
    }
    for (const name of change.remove) {
      const before = stored.find((tool) => tool.upstreamName === name);
      await tx.connectorTool.delete({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } } });
      await audit(tx, 'connector.tool_removed', { slug, tool: name, before: (before?.pinned ?? before?.held ?? null) as Prisma.InputJsonValue });
    }
    await tx.connector.update({ where: { id: connector.id }, data: { problems: change.problems, lastRefreshedAt: new Date(), lastRefreshError: null } });
    return { slug, ok: true, held: change.hold.map((hold) => hold.definition.name), released: change.release, removed: change.remove, problems: change.problems };
  });
}

/** Approves held tools (all of the connector's when `tools` is empty): their held definition becomes the pinned one. */
export async function approveTools(slug: string, tools: string[]): Promise<string[]> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const held = await tx.connectorTool.findMany({ where: { connectorId: connector.id, status: 'held', ...(tools.length ? { upstreamName: { in: tools } } : {}) } });
    const unknown = tools.filter((name) => !held.some((tool) => tool.upstreamName === name));
    if (unknown.length) throw new ConnectorError(`Not held for approval in "${slug}": ${unknown.join(', ')}.`);
    const approved: string[] = [];
    for (const tool of held) {
      if (!tool.held || !tool.heldHash) continue; // held as invalid: the upstream must fix it first
      await tx.connectorTool.update({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: tool.upstreamName } },
        data: { status: 'active', holdReason: null, pinned: tool.held as Prisma.InputJsonValue, pinnedHash: tool.heldHash, held: undefined, heldHash: null },
      });
      await audit(tx, 'connector.tool_approved', { slug, tool: tool.upstreamName, before: (tool.pinned ?? null) as Prisma.InputJsonValue, after: tool.held as Prisma.InputJsonValue });
      approved.push(tool.upstreamName);
    }
    return approved;
  });
}

/** Switches a connector on or off for one organization. Returns whether anything changed. */
export async function setEnabled(slug: string, orgSlug: string, enabled: boolean): Promise<boolean> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const [org] = await orgsBySlug([orgSlug], tx);
    const key = { orgId_connectorId: { orgId: org!.id, connectorId: connector.id } };
    const present = await tx.orgConnector.findUnique({ where: key });
    if (Boolean(present) === enabled) return false;
    if (enabled) await tx.orgConnector.create({ data: { orgId: org!.id, connectorId: connector.id } });
    else await tx.orgConnector.delete({ where: key });
    await audit(tx, enabled ? 'connector.enabled' : 'connector.disabled', { slug, org: orgSlug }, org!.id);
    return true;
  });
}

/** Removes a connector, its tools and its switches. */
export async function removeConnector(slug: string): Promise<void> {
  await inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    await tx.connector.delete({ where: { id: connector.id } });
    await audit(tx, 'connector.removed', { slug, url: connector.url });
  });
}

export type ConnectorSummary = {
  slug: string;
  name: string;
  url: string;
  status: string;
  /** Names only: the values are sealed and never shown. */
  credentialHeaders: number;
  tools: { name: string; exposedName: string; status: string; holdReason: string | null }[];
  problems: DefinitionProblem[];
  orgs: string[];
  lastRefreshedAt: Date | null;
  lastRefreshError: string | null;
};

export async function listConnectors(): Promise<ConnectorSummary[]> {
  const connectors = await db().connector.findMany({ include: { tools: { orderBy: { upstreamName: 'asc' } }, orgs: { include: { org: { select: { slug: true } } } } }, orderBy: { slug: 'asc' } });
  return connectors.map((connector) => ({
    slug: connector.slug,
    name: connector.name,
    url: connector.url,
    status: connector.status,
    credentialHeaders: Object.keys(openHeaders(connector.credentialSealed)).length,
    tools: connector.tools.map((tool) => ({ name: tool.upstreamName, exposedName: tool.exposedName, status: tool.status, holdReason: tool.holdReason })),
    problems: Array.isArray(connector.problems) ? (connector.problems as DefinitionProblem[]) : [],
    orgs: connector.orgs.map((entry) => entry.org.slug).sort(),
    lastRefreshedAt: connector.lastRefreshedAt,
    lastRefreshError: connector.lastRefreshError,
  }));
}

/** Re-seals every connector credential under a new AUTH_SECRET; joins the caller's transaction (secret:rotate). */
export async function resealConnectorCredentials(currentSecret: string, newSecret: string): Promise<number> {
  return inTransaction(async (tx) => {
    const rows = await tx.connector.findMany({ where: { credentialSealed: { not: null } }, select: { id: true, slug: true, credentialSealed: true } });
    for (const row of rows) {
      let plaintext: string;
      try {
        plaintext = unseal(credentialKey(currentSecret), row.credentialSealed!);
      } catch {
        throw new Error(`The credential of connector ${row.slug} cannot be decrypted with the current AUTH_SECRET: nothing was changed.`);
      }
      await tx.connector.update({ where: { id: row.id }, data: { credentialSealed: seal(credentialKey(newSecret), plaintext) } });
    }
    return rows.length;
  });
}

async function connectorBySlug(tx: Tx, slug: string) {
  const connector = await tx.connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${slug}".`);
  return connector;
}

async function orgsBySlug(slugs: string[], tx: Tx = db()) {
  const orgs = await tx.organization.findMany({ where: { slug: { in: slugs } }, select: { id: true, slug: true } });
  const missing = slugs.filter((slug) => !orgs.some((org) => org.slug === slug));
  if (missing.length) throw new ConnectorError(`There is no organization ${missing.map((slug) => `"${printable(slug)}"`).join(', ')}.`);
  return orgs;
}

type ConnectorEvent = Extract<AuditEventType, `connector.${string}`>;

function audit(tx: Tx, type: ConnectorEvent, data: Prisma.InputJsonObject, orgId: string | null = null): Promise<void> {
  return recordAudit({ type, orgId, actorPersonId: null, ip: null, data: { ...data, via: 'cli' } }, tx);
}

function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
