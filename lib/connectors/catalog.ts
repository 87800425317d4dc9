// A connector's catalog: adding a connector (its tools read and pinned) and refreshing it (what pinning
// allows applied, the rest held; approving them is review.ts) (docs/connectors.md, Pinning); and replacing its
// credential, which is stored only once the upstream's catalog could be read with it, as on adding. Upstream
// catalogs are read before any transaction opens (upstream.ts), so no database connection waits on an upstream.
import type { ChangedBy } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import { Prisma } from '@/lib/generated/prisma/client';
import { audit, checkConnectorFields, connectorBySlug, orgsBySlug } from './connectors';
import { type ClientCredentialsInput, clientCredentialsColumns, clientCredentialsOf, clientCredentialsSummary } from './client-credentials';
import { type CredentialInput, resealClientSecret, type SealedCredential, sealCredential, upstreamTarget } from './credentials';
import { connectorSlugProblem, type DefinitionProblem, definitionHash, exposedToolName, readToolDefinition, type ToolDefinition } from './definitions';
import { ConnectorError, printable } from './errors';
import { planCatalog, type StoredTool } from './pinning';
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

/**
 * Adds a connector: reads its catalog first (nothing is stored if that fails) and pins it. `orgs` are
 * offered it and have it switched on at once (an instance admin chose them).
 */
export async function addConnector(input: AddConnector, by: ChangedBy): Promise<{ slug: string; tools: number; problems: DefinitionProblem[] }> {
  const slugProblem = connectorSlugProblem(input.slug);
  if (slugProblem) throw new ConnectorError(slugProblem);
  const fields = checkConnectorFields({ url: input.url, name: input.name ?? input.slug, description: input.description, timeoutMs: input.timeoutMs });
  const { headerNames, ...credential } = sealCredential(input);
  if (await db().connector.findUnique({ where: { slug: input.slug }, select: { id: true } })) throw new ConnectorError(`A connector "${input.slug}" already exists.`);
  const orgs = await orgsBySlug(input.orgs ?? []);

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
    const change = planCatalog(
      slug,
      stored.map((tool): StoredTool => ({ name: tool.upstreamName, pinnedHash: tool.pinnedHash, heldHash: tool.heldHash, held: tool.status === 'held' })),
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
      await audit(tx, by, 'connector.tool_held', { slug, tool: definition.name, reason, before: (before?.pinned ?? null) as Prisma.InputJsonValue, after: row.held! });
    }
    for (const name of change.release) {
      await tx.connectorTool.update({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } },
        data: { status: 'active', holdReason: null, held: Prisma.DbNull, heldHash: null },
      });
      await audit(tx, by, 'connector.tool_released', { slug, tool: name });
    }
    for (const name of change.withdraw) {
      await tx.connectorTool.update({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } },
        data: { status: 'held', holdReason: 'invalid', held: Prisma.DbNull, heldHash: null },
      });
      await audit(tx, by, 'connector.tool_held', { slug, tool: name, reason: 'invalid', problem: change.problems.find((problem) => problem.name === name)?.problem ?? '' });
    }
    for (const name of change.remove) {
      const before = stored.find((tool) => tool.upstreamName === name);
      await tx.connectorTool.delete({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } } });
      await audit(tx, by, 'connector.tool_removed', { slug, tool: name, before: (before?.pinned ?? before?.held ?? null) as Prisma.InputJsonValue });
    }
    await tx.connector.update({ where: { id: connector.id }, data: { problems: change.problems, lastRefreshedAt: new Date(), lastRefreshError: null } });
    return { slug, ok: true, held: change.hold.map((hold) => hold.definition.name), released: change.release, removed: change.remove, problems: change.problems };
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
