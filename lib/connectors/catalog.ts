// A connector's catalog: testing and adding a connector (its tools read and pinned), refreshing it (what
// pinning allows applied, the rest held; approving them is review.ts), moving it to a new URL (every tool
// held), editing it (docs/connectors.md, Pinned tools); and replacing its
// credential, which is stored only once the upstream's catalog could be read with it, as on adding. Upstream
// catalogs are read before any transaction opens (upstream.ts), so no database connection waits on an upstream.
import type { ChangedBy } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { Prisma } from '@/lib/generated/prisma/client';
import { audit, checkConnectorFields, connectorBySlug, orgsBySlug } from './connectors';
import { type ClientCredentialsInput, clientCredentialsColumns, clientCredentialsOf, clientCredentialsSummary } from './client-credentials';
import { type CredentialInput, resealClientSecret, type SealedCredential, sealCredential, upstreamTarget } from './credentials';
import { connectorSlugProblem, type DefinitionProblem, definitionHash, exposedToolName, readToolDefinition, requiredScope, type ToolDefinition, type ToolScope } from './definitions';
import { ConnectorError, printable } from './errors';
import { type CatalogChange, planCatalog, planMove, type StoredTool } from './pinning';
import { CATALOG_PAGE_BYTES, listUpstreamTools, type UpstreamTarget } from './upstream';
import { cappedFetch } from './upstream-http';
import { accessToken, bearerFetch, refusedAccessToken } from './upstream-auth';

type ConnectorRow = Prisma.ConnectorGetPayload<object>;

function target(connector: ConnectorRow): UpstreamTarget {
  return upstreamTarget({ ...connector, clientCredentials: clientCredentialsOf(connector) });
}

/**
 * The upstream's catalog, each tool read and checked (a bad one is named, the rest kept). With client
 * credentials, the token is got first (its failure is the clearer one), and a 401 gets a new token and one
 * more try.
 */
async function readCatalog(upstream: UpstreamTarget): Promise<(ToolDefinition | DefinitionProblem)[]> {
  if (upstream.token) await accessToken(upstream.token);
  const read = () => listUpstreamTools(upstream, { fetch: bearerFetch(upstream, cappedFetch(CATALOG_PAGE_BYTES)) });
  let tools: unknown[];
  try {
    tools = await read();
  } catch (error) {
    if (!refusedAccessToken(upstream, error)) throw error;
    tools = await read();
  }
  return tools.map(readToolDefinition);
}

/** What an audit event says of a credential: header names, or the client credentials but their secret. */
function credentialAudit(credential: SealedCredential, headerNames: string[]): Prisma.InputJsonObject {
  if (credential.clientCredentials) return { credential: 'client_credentials', clientCredentials: clientCredentialsSummary(credential.clientCredentials) };
  return { credential: headerNames.length ? 'headers' : 'none', headers: headerNames };
}

function credentialColumns(credential: SealedCredential) {
  return { credentialSealed: credential.credentialSealed, ...clientCredentialsColumns(credential.clientCredentials) };
}

export type AddConnector = {
  slug: string;
  url: string;
  name?: string;
  description?: string;
  /** Header credential lines ("Name: value"); or, never with them, client credentials. */
  headers?: string[];
  clientCredentials?: ClientCredentialsInput;
  orgs?: string[];
  timeoutMs?: number;
};

/** An added connector checked and its credential sealed, before anything is read or stored. */
async function checkNewConnector(input: AddConnector) {
  const slugProblem = connectorSlugProblem(input.slug);
  if (slugProblem) throw new ConnectorError(slugProblem);
  const fields = checkConnectorFields({ url: input.url, name: input.name ?? input.slug, description: input.description, timeoutMs: input.timeoutMs });
  const { headerNames, ...credential } = sealCredential(input);
  if (await db().connector.findUnique({ where: { slug: input.slug }, select: { id: true } })) throw new ConnectorError(`A connector "${input.slug}" already exists.`);
  const orgs = await orgsBySlug(input.orgs ?? []);
  return { fields, credential, headerNames, orgs };
}

/** A tool as the upstream describes it, for an admin to look at before adding: plain text, never markup. */
export type TestedTool = { name: string; title: string | null; description: string | null; scope: ToolScope };

/**
 * What adding the connector would find, storing nothing: the fields checked exactly as addConnector checks
 * them, the catalog read with the given credential, and the tools it would pin with the problems it would
 * name. An upstream that cannot be read throws its UpstreamError.
 */
export async function testConnection(input: AddConnector): Promise<{ tools: TestedTool[]; problems: DefinitionProblem[] }> {
  const { fields, credential } = await checkNewConnector(input);
  const catalog = await readCatalog(upstreamTarget({ slug: input.slug, url: fields.url, timeoutMs: fields.timeoutMs, ...credential }));
  const change = planCatalog(input.slug, [], catalog, true);
  return {
    tools: change.pin.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, scope: requiredScope(tool) })),
    problems: change.problems,
  };
}

/**
 * Adds a connector: reads its catalog first (nothing is stored if that fails) and pins it. `orgs` are
 * offered it and have it switched on at once (an instance admin chose them).
 */
export async function addConnector(input: AddConnector, by: ChangedBy): Promise<{ slug: string; tools: number; problems: DefinitionProblem[] }> {
  const { fields, credential, headerNames, orgs } = await checkNewConnector(input);

  const catalog = await readCatalog(upstreamTarget({ slug: input.slug, url: fields.url, timeoutMs: fields.timeoutMs, ...credential }));
  const change = planCatalog(input.slug, [], catalog, true);
  return inTransaction(async (tx) => {
    const connector = await tx.connector.create({
      data: { slug: input.slug, ...fields, ...credentialColumns(credential), problems: change.problems, lastRefreshedAt: new Date() },
    });
    for (const definition of change.pin) await tx.connectorTool.create({ data: toolRow(connector.id, input.slug, definition, 'active') });
    for (const org of orgs) {
      await tx.connectorOffer.create({ data: { orgId: org.id, connectorId: connector.id } });
      await tx.orgConnector.create({ data: { orgId: org.id, connectorId: connector.id } });
    }
    await audit(tx, by, 'connector.added', {
      slug: input.slug,
      url: fields.url,
      tools: change.pin.map((tool) => tool.name),
      problems: change.problems,
      ...credentialAudit(credential, headerNames), // names only: never a value or the secret
      orgs: orgs.map((org) => org.slug),
    });
    for (const org of orgs) await audit(tx, by, 'connector.enabled', { slug: input.slug, org: org.slug }, org.id);
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
export async function refreshConnector(slug: string, by: ChangedBy): Promise<RefreshOutcome> {
  const connector = await db().connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${printable(slug)}".`);
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
    const change = planCatalog(slug, stored.map(storedTool), catalog, false);
    await applyChange(tx, connector, stored, change, by);
    return { slug, ok: true, held: change.hold.map((hold) => hold.definition.name), released: change.release, removed: change.remove, problems: change.problems };
  });
}

type ToolRow = Prisma.ConnectorToolGetPayload<object>;

function storedTool(tool: ToolRow): StoredTool {
  return { name: tool.upstreamName, pinnedHash: tool.pinnedHash, heldHash: tool.heldHash, held: tool.status === 'held' };
}

/** Applies a planned catalog change in the caller's transaction, each tool's change an audit event. */
async function applyChange(tx: Tx, connector: ConnectorRow, stored: ToolRow[], change: CatalogChange, by: ChangedBy): Promise<void> {
  const { slug } = connector;
  const key = (upstreamName: string) => ({ connectorId_upstreamName: { connectorId: connector.id, upstreamName } });
  for (const { definition, reason } of change.hold) {
    const row = toolRow(connector.id, slug, definition, 'held', reason);
    const before = stored.find((tool) => tool.upstreamName === definition.name);
    await tx.connectorTool.upsert({ where: key(definition.name), create: row, update: { status: 'held', holdReason: reason, held: row.held, heldHash: row.heldHash } });
    await audit(tx, by, 'connector.tool_held', { slug, tool: definition.name, reason, before: (before?.pinned ?? null) as Prisma.InputJsonValue, after: row.held! });
  }
  for (const name of change.release) {
    await tx.connectorTool.update({ where: key(name), data: { status: 'active', holdReason: null, held: Prisma.DbNull, heldHash: null } });
    await audit(tx, by, 'connector.tool_released', { slug, tool: name });
  }
  for (const name of change.withdraw) {
    await tx.connectorTool.update({ where: key(name), data: { status: 'held', holdReason: 'invalid', held: Prisma.DbNull, heldHash: null } });
    await audit(tx, by, 'connector.tool_held', { slug, tool: name, reason: 'invalid', problem: change.problems.find((problem) => problem.name === name)?.problem ?? '' });
  }
  for (const name of change.remove) {
    const before = stored.find((tool) => tool.upstreamName === name);
    await tx.connectorTool.delete({ where: key(name) });
    await audit(tx, by, 'connector.tool_removed', { slug, tool: name, before: (before?.pinned ?? before?.held ?? null) as Prisma.InputJsonValue });
  }
  await tx.connector.update({ where: { id: connector.id }, data: { problems: change.problems, lastRefreshedAt: new Date(), lastRefreshError: null } });
}

export type ConnectorEdit = { name?: string; description?: string; url?: string; timeoutMs?: number };

export type EditOutcome = { slug: string; changed: (keyof ConnectorEdit)[]; held: string[]; removed: string[] };

/**
 * Edits a connector's name, description, URL or timeout. A new URL (any change of it) is another server:
 * its catalog is read first with the current credential (nothing is stored if that fails or lists no
 * tool), then the URL is stored and every tool it serves is held for review, in one transaction — changed
 * and new ones as a refresh holds them, unchanged ones as `moved` — and the tools it no longer lists removed.
 */
export async function updateConnector(slug: string, edit: ConnectorEdit, by: ChangedBy): Promise<EditOutcome> {
  const connector = await db().connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${printable(slug)}".`);
  const fields = checkConnectorFields({
    url: edit.url ?? connector.url,
    name: edit.name ?? connector.name,
    description: edit.description ?? connector.description,
    timeoutMs: edit.timeoutMs ?? connector.timeoutMs,
  });
  const changed = (Object.keys(fields) as (keyof ConnectorEdit)[]).filter((field) => fields[field] !== connector[field]);
  const moved = changed.includes('url');
  let catalog: (ToolDefinition | DefinitionProblem)[] = [];
  if (moved) {
    catalog = await readCatalog(target({ ...connector, url: fields.url, timeoutMs: fields.timeoutMs }));
    if (catalog.length === 0) throw new ConnectorError('The upstream at the new URL lists no tools: nothing was changed.');
  }
  if (changed.length === 0) return { slug, changed, held: [], removed: [] };
  return inTransaction(async (tx) => {
    const current = await connectorBySlug(tx, slug);
    const updated = await tx.connector.update({ where: { id: current.id }, data: fields });
    const before = Object.fromEntries(changed.map((field) => [field, current[field]]));
    const after = Object.fromEntries(changed.map((field) => [field, fields[field]]));
    await audit(tx, by, 'connector.updated', { slug, before, after });
    if (!moved) return { slug, changed, held: [], removed: [] };
    const stored = await tx.connectorTool.findMany({ where: { connectorId: current.id } });
    const change = planMove(slug, stored.map(storedTool), catalog);
    await applyChange(tx, updated, stored, change, by);
    return { slug, changed, held: change.hold.map((hold) => hold.definition.name), removed: change.remove };
  });
}

/** A new credential: header lines or client credentials (either replaces what the connector had), or only a new client secret. */
export type NewCredential = CredentialInput | { clientSecret: string };

/**
 * Replaces a connector's credential. The upstream's catalog is read with the new one first (for client
 * credentials, a token is got with it): nothing is stored if that fails. The audit event names the header
 * names or the client credentials, never a value or the secret.
 */
export async function replaceCredential(slug: string, credential: NewCredential, by: ChangedBy): Promise<{ slug: string; kind: 'headers' | 'client_credentials' | 'none' }> {
  const connector = await db().connector.findUnique({ where: { slug } });
  if (!connector) throw new ConnectorError(`There is no connector "${printable(slug)}".`);
  let sealed: SealedCredential & { headerNames: string[] };
  if ('clientSecret' in credential) {
    const current = clientCredentialsOf(connector);
    if (!current) throw new ConnectorError(`The connector "${printable(slug)}" has no client credentials: give header lines or the whole client credentials instead.`);
    sealed = { credentialSealed: null, clientCredentials: resealClientSecret(current, credential.clientSecret), headerNames: [] };
  } else {
    sealed = sealCredential(credential);
  }
  const { headerNames, ...replacement } = sealed;
  await readCatalog(upstreamTarget({ slug, url: connector.url, timeoutMs: connector.timeoutMs, ...replacement }));
  await inTransaction(async (tx) => {
    const current = await connectorBySlug(tx, slug);
    await tx.connector.update({ where: { id: current.id }, data: credentialColumns(replacement) });
    await audit(tx, by, 'connector.credential_replaced', { slug, ...credentialAudit(replacement, headerNames) });
  });
  return { slug, kind: replacement.clientCredentials ? 'client_credentials' : headerNames.length ? 'headers' : 'none' };
}
