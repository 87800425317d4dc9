// A connector's catalog: adding a connector (its tools read and pinned), refreshing it (what pinning allows
// applied, the rest held) and approving held tools (docs/connectors.md, Pinned tools). Upstream catalogs
// are read before any transaction opens (upstream.ts), so no database connection waits on an upstream.
import type { ChangedBy } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { Prisma } from '@/lib/generated/prisma/client';
import { audit, checkConnectorFields, connectorBySlug, orgsBySlug } from './connectors';
import { openHeaders, parseCredentialHeaders, sealHeaders } from './credentials';
import { connectorSlugProblem, type DefinitionProblem, definitionHash, exposedToolName, readToolDefinition, type ToolDefinition } from './definitions';
import { ConnectorError, printable } from './errors';
import { planCatalog, type StoredTool } from './pinning';
import { listUpstreamTools, type UpstreamTarget } from './upstream';

function target(connector: { url: string; credentialSealed: string | null; timeoutMs: number }): UpstreamTarget {
  return { url: connector.url, headers: openHeaders(connector.credentialSealed), timeoutMs: connector.timeoutMs };
}

/** The upstream's catalog, each tool read and checked (a bad one is named, the rest kept). */
async function readCatalog(upstream: UpstreamTarget): Promise<(ToolDefinition | DefinitionProblem)[]> {
  return (await listUpstreamTools(upstream)).map(readToolDefinition);
}

export type AddConnector = { slug: string; url: string; name?: string; description?: string; headers?: string[]; orgs?: string[]; timeoutMs?: number };

/**
 * Adds a connector: reads its catalog first (nothing is stored if that fails) and pins it. `orgs` are
 * offered it and have it switched on at once (an instance admin chose them).
 */
export async function addConnector(input: AddConnector, by: ChangedBy): Promise<{ slug: string; tools: number; problems: DefinitionProblem[] }> {
  const slugProblem = connectorSlugProblem(input.slug);
  if (slugProblem) throw new ConnectorError(slugProblem);
  const fields = checkConnectorFields({ url: input.url, name: input.name ?? input.slug, description: input.description, timeoutMs: input.timeoutMs });
  const headers = parseCredentialHeaders(input.headers ?? []);
  if (await db().connector.findUnique({ where: { slug: input.slug }, select: { id: true } })) throw new ConnectorError(`A connector "${input.slug}" already exists.`);
  const orgs = await orgsBySlug(input.orgs ?? []);

  const catalog = await readCatalog({ url: fields.url, headers, timeoutMs: fields.timeoutMs });
  const change = planCatalog(input.slug, [], catalog, true);
  return inTransaction(async (tx) => {
    const connector = await tx.connector.create({
      data: { slug: input.slug, ...fields, credentialSealed: sealHeaders(headers), problems: change.problems, lastRefreshedAt: new Date() },
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
      headers: Object.keys(headers), // names only: never the values
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
      await audit(tx, by, 'connector.tool_held', { slug, tool: definition.name, reason, before: (before?.pinned ?? null) as Prisma.InputJsonValue, after: row.held! });
    }
    for (const name of change.release) {
      await tx.connectorTool.update({
        where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } },
        data: { status: 'active', holdReason: null, held: undefined, heldHash: null },
      });
      await audit(tx, by, 'connector.tool_released', { slug, tool: name });
    }
    for (const name of change.withdraw) {
      await tx.connectorTool.update({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: name } }, data: { status: 'held', holdReason: 'invalid', heldHash: null } });
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

/** Approves held tools (all of the connector's when `tools` is empty): their held definition becomes the pinned one. */
export async function approveTools(slug: string, tools: string[], by: ChangedBy): Promise<string[]> {
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
      await audit(tx, by, 'connector.tool_approved', { slug, tool: tool.upstreamName, before: (tool.pinned ?? null) as Prisma.InputJsonValue, after: tool.held as Prisma.InputJsonValue });
      approved.push(tool.upstreamName);
    }
    return approved;
  });
}
