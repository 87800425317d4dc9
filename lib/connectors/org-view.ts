// Connectors as one organization's admins see them (docs/connectors.md, Who may switch it on): the ones an
// instance admin offered to the org, switched on or off by its admins, and their tools, each switchable
// on the org's Tools tab. Nothing of a connector not offered to the org is read into what this module
// returns or says, not even that it exists: a slug that is not offered is answered as one that is unknown.
import type { ChangedBy } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { Prisma } from '@/lib/generated/prisma/client';
import { setEnabled } from './availability';
import { CONNECTOR_SLUG, requiredScope, type ToolDefinition, type ToolScope } from './definitions';
import { ConnectorError, printable } from './errors';

/** A tool of an offered connector. */
export type OrgConnectorTool = {
  /** `<slug>__<tool>`: the name /mcp lists it under and the org's Tools tab switches it by. */
  exposedName: string;
  title: string;
  description: string;
  /** Held tools wait for an instance admin's approval and are not on /mcp meanwhile (docs/connectors.md, Pinned tools). */
  status: 'active' | 'held';
  scope: ToolScope;
  /** Switched off for the org on its Tools tab (a tool restriction on the exposed name). */
  restricted: boolean;
};

export type OfferedConnector = {
  slug: string;
  name: string;
  description: string;
  /** Switched on for this org. */
  on: boolean;
  /** False when an instance admin paused it for the whole installation: no tool of it is served meanwhile. */
  active: boolean;
  tools: OrgConnectorTool[];
};

/**
 * Which connectors an org's admins see: offered to every org, offered to this one, or switched on for it
 * (which an offer precedes: its people see the tools on /mcp anyway, and its admins must be able to switch it off).
 */
function visibleTo(orgId: string): Prisma.ConnectorWhereInput {
  return { OR: [{ offeredToAll: true }, { offers: { some: { orgId } } }, { orgs: { some: { orgId } } }] };
}

/** The connectors offered to the org, by slug, with their tools and the org's switches. */
export async function offeredConnectors(orgId: string): Promise<OfferedConnector[]> {
  const connectors = await db().connector.findMany({
    where: visibleTo(orgId),
    select: {
      slug: true,
      name: true,
      description: true,
      status: true,
      orgs: { where: { orgId }, select: { orgId: true } },
      tools: { select: { exposedName: true, upstreamName: true, status: true, pinned: true, held: true, scopeOverride: true }, orderBy: { upstreamName: 'asc' } },
    },
    orderBy: { slug: 'asc' },
  });
  const names = connectors.flatMap((connector) => connector.tools.map((tool) => tool.exposedName));
  const restricted = new Set((await db().toolRestriction.findMany({ where: { orgId, toolName: { in: names } }, select: { toolName: true } })).map((row) => row.toolName));
  return connectors.map((connector) => ({
    slug: connector.slug,
    name: connector.name,
    description: connector.description,
    on: connector.orgs.length > 0,
    active: connector.status === 'active',
    tools: connector.tools.map((tool) => {
      // The definition people approved, or for a tool never approved the one waiting; either may be absent
      // for a tool held as invalid, which is then shown by its upstream name and counted as one that writes.
      const definition = (tool.pinned ?? tool.held ?? null) as Partial<ToolDefinition> | null;
      return {
        exposedName: tool.exposedName,
        title: text(definition?.title) || text(definition?.annotations?.title) || tool.upstreamName,
        description: text(definition?.description),
        status: tool.status === 'active' ? 'active' : 'held',
        scope: requiredScope({ annotations: definition?.annotations ?? null }, tool.scopeOverride),
        restricted: restricted.has(tool.exposedName),
      } satisfies OrgConnectorTool;
    }),
  }));
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** One answer for a slug that is unknown and one not offered to the org: the admin learns nothing of the other. */
function notOffered(slug: string): ConnectorError {
  return new ConnectorError(`There is no connector "${printable(slug)}" offered to this organization.`);
}

/**
 * An org admin switches a connector offered to their org on or off (availability.ts `setEnabled`, which
 * refuses switching on what is not offered, in the same transaction). Returns whether anything changed.
 */
export async function switchOfferedConnector(org: { id: string; slug: string }, slug: string, enabled: boolean, by: ChangedBy): Promise<boolean> {
  if (!CONNECTOR_SLUG.test(slug)) throw notOffered(slug);
  return inTransaction(async (tx) => {
    const visible = await tx.connector.findFirst({ where: { slug, ...visibleTo(org.id) }, select: { id: true } });
    if (!visible) throw notOffered(slug);
    try {
      return await setEnabled(slug, org.slug, enabled, by);
    } catch (error) {
      // An offer withdrawn meanwhile: answered as above, never with setEnabled's words naming the org.
      if (error instanceof ConnectorError) throw notOffered(slug);
      throw error;
    }
  });
}

/**
 * Whether `exposedName` is a tool of a connector switched on for the org (held or not): the names, besides
 * the built-in tools', that the org's Tools tab may switch. Not a tool of a connector merely offered, nor of
 * another org's, nor a name made up.
 */
export async function isToolOfConnectorOn(tx: Tx, orgId: string, exposedName: string): Promise<boolean> {
  const tool = await tx.connectorTool.findFirst({ where: { exposedName, connector: { orgs: { some: { orgId } } } }, select: { exposedName: true } });
  return Boolean(tool);
}
