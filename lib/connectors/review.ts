// Reviewing a connector's tools (docs/connectors.md, Pinning): what an instance admin sees of each tool —
// its pinned definition and the one held for approval — and the decisions on them: approve a held
// definition, keep it held, or override the scope a tool needs. The command line approves by name; the
// console names the held definition's hash it showed, so that a definition the upstream changed again
// after the page was rendered is never approved unseen.
import type { ChangedBy } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { Prisma } from '@/lib/generated/prisma/client';
import { audit, connectorBySlug } from './connectors';
import { type DefinitionProblem, requiredScope, type ToolDefinition, type ToolScope } from './definitions';
import { ConnectorError, printable } from './errors';

export type ReviewedTool = {
  upstreamName: string;
  exposedName: string;
  status: 'active' | 'held';
  holdReason: string | null;
  /** What is offered (or was, before it was held); null for a tool never approved. */
  pinned: ToolDefinition | null;
  pinnedHash: string | null;
  /** The definition waiting for approval; null when nothing waits (active, or held as invalid). */
  held: ToolDefinition | null;
  heldHash: string | null;
  /** The scope its definition implies (the pinned one, else the one waiting), without an override. */
  definitionScope: ToolScope;
  scopeOverride: ToolScope | null;
  /** What a caller needs: the override when there is one. */
  scope: ToolScope;
};

export type ConnectorReview = { slug: string; name: string; tools: ReviewedTool[]; problems: DefinitionProblem[] };

type ToolRow = Prisma.ConnectorToolGetPayload<object>;

function asScope(value: string | null): ToolScope | null {
  return value === 'mcp:read' || value === 'mcp:write' ? value : null;
}

function reviewed(tool: ToolRow): ReviewedTool {
  const pinned = (tool.pinned ?? null) as ToolDefinition | null;
  const held = tool.heldHash ? ((tool.held ?? null) as ToolDefinition | null) : null;
  const annotations = { annotations: (pinned ?? held)?.annotations ?? null };
  const scopeOverride = asScope(tool.scopeOverride);
  return {
    upstreamName: tool.upstreamName,
    exposedName: tool.exposedName,
    status: tool.status === 'active' ? 'active' : 'held',
    holdReason: tool.status === 'active' ? null : tool.holdReason,
    pinned,
    pinnedHash: tool.pinnedHash,
    held,
    heldHash: held ? tool.heldHash : null,
    definitionScope: requiredScope(annotations),
    scopeOverride,
    scope: requiredScope(annotations, scopeOverride),
  };
}

/** Every tool of the connector, held ones first, for the review page. */
export async function toolsForReview(slug: string): Promise<ConnectorReview> {
  const connector = await connectorBySlug(db(), slug);
  const tools = await db().connectorTool.findMany({ where: { connectorId: connector.id }, orderBy: { upstreamName: 'asc' } });
  const all = tools.map(reviewed);
  return {
    slug: connector.slug,
    name: connector.name,
    tools: [...all.filter((tool) => tool.status === 'held'), ...all.filter((tool) => tool.status !== 'held')],
    problems: Array.isArray(connector.problems) ? (connector.problems as DefinitionProblem[]) : [],
  };
}

/** The held definition becomes the pinned one, with its audit event. */
async function approveRow(tx: Tx, slug: string, tool: ToolRow, by: ChangedBy): Promise<void> {
  await tx.connectorTool.update({
    where: { connectorId_upstreamName: { connectorId: tool.connectorId, upstreamName: tool.upstreamName } },
    data: { status: 'active', holdReason: null, pinned: tool.held as Prisma.InputJsonValue, pinnedHash: tool.heldHash, held: Prisma.DbNull, heldHash: null },
  });
  await audit(tx, by, 'connector.tool_approved', { slug, tool: tool.upstreamName, before: (tool.pinned ?? null) as Prisma.InputJsonValue, after: tool.held as Prisma.InputJsonValue });
}

const names = (tools: string[]) => tools.map(printable).join(', ');

/**
 * Approves held tools by name (all of the connector's that have a definition waiting when `tools` is
 * empty). A tool named that is held as invalid has nothing to approve: refused, not skipped, so that the
 * admin learns the upstream must fix it first.
 */
export async function approveTools(slug: string, tools: string[], by: ChangedBy): Promise<string[]> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const held = await tx.connectorTool.findMany({ where: { connectorId: connector.id, status: 'held', ...(tools.length ? { upstreamName: { in: tools } } : {}) } });
    const unknown = tools.filter((name) => !held.some((tool) => tool.upstreamName === name));
    if (unknown.length) throw new ConnectorError(`Not held for approval in "${slug}": ${names(unknown)}.`);
    const invalid = held.filter((tool) => !tool.held || !tool.heldHash).map((tool) => tool.upstreamName);
    if (tools.length && invalid.length) throw new ConnectorError(`Held as invalid in "${slug}", with no definition to approve (the upstream must fix it first): ${names(invalid)}.`);
    const approved: string[] = [];
    for (const tool of held) {
      if (!tool.held || !tool.heldHash) continue; // approving all: the invalid ones wait for the upstream
      await approveRow(tx, slug, tool, by);
      approved.push(tool.upstreamName);
    }
    return approved;
  });
}

/** A console decision on a held tool: the hash of the held definition the admin was shown. */
export type HeldDecision = { tool: string; heldHash: string };

/**
 * The held tools named, each still held with exactly the definition the admin saw; else a refusal that
 * names the ones that changed since (or are no longer held), and nothing is decided.
 */
async function heldAsShown(tx: Tx, slug: string, decisions: HeldDecision[]): Promise<ToolRow[]> {
  const connector = await connectorBySlug(tx, slug);
  const rows = await tx.connectorTool.findMany({ where: { connectorId: connector.id, upstreamName: { in: decisions.map((decision) => decision.tool) } } });
  const stale: string[] = [];
  const invalid: string[] = [];
  const shown: ToolRow[] = [];
  for (const decision of decisions) {
    const row = rows.find((tool) => tool.upstreamName === decision.tool);
    if (row?.status !== 'held') stale.push(decision.tool);
    else if (!row.heldHash || !row.held) invalid.push(decision.tool);
    else if (row.heldHash !== decision.heldHash) stale.push(decision.tool);
    else shown.push(row);
  }
  if (stale.length) throw new ConnectorError(`Changed since you looked: review it again (${names(stale)}). Nothing was decided.`);
  if (invalid.length) throw new ConnectorError(`Held as invalid, with no definition to approve (the upstream must fix it first): ${names(invalid)}. Nothing was decided.`);
  return shown;
}

/** Approves the held definitions the admin was shown, all or none. */
export async function approveHeldTools(slug: string, decisions: HeldDecision[], by: ChangedBy): Promise<string[]> {
  if (!decisions.length) throw new ConnectorError('No tool was named to approve.');
  if (new Set(decisions.map((decision) => decision.tool)).size !== decisions.length) throw new ConnectorError('A tool was named more than once.');
  return inTransaction(async (tx) => {
    const shown = await heldAsShown(tx, slug, decisions);
    for (const tool of shown) await approveRow(tx, slug, tool, by);
    return shown.map((tool) => tool.upstreamName);
  });
}

/** Records that the admin looked at the held definition and keeps it held: nothing else changes. */
export async function keepHolding(slug: string, decision: HeldDecision, by: ChangedBy): Promise<string> {
  return inTransaction(async (tx) => {
    const [tool] = await heldAsShown(tx, slug, [decision]);
    await audit(tx, by, 'connector.tool_kept_held', { slug, tool: tool!.upstreamName, reason: tool!.holdReason, heldHash: tool!.heldHash, held: tool!.held as Prisma.InputJsonValue });
    return tool!.upstreamName;
  });
}

/**
 * Sets (or, with null, clears) the scope a tool needs instead of the one its definition implies
 * (docs/connectors.md, Gates). Lowering what a caller needs — mcp:write to mcp:read — lets every read-only
 * token call the tool: refused unless `confirmLowering`, whatever page sent it.
 */
export async function setScopeOverride(slug: string, toolName: string, scope: ToolScope | null, by: ChangedBy, options: { confirmLowering: boolean }): Promise<ReviewedTool> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const row = await tx.connectorTool.findUnique({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: toolName } } });
    if (!row) throw new ConnectorError(`There is no tool "${printable(toolName)}" in "${slug}".`);
    const before = reviewed(row);
    const after = reviewed({ ...row, scopeOverride: scope });
    if (before.scopeOverride === after.scopeOverride) return before;
    if (before.scope === 'mcp:write' && after.scope === 'mcp:read' && !options.confirmLowering) {
      throw new ConnectorError(`Lowering "${printable(toolName)}" to mcp:read lets every read-only token call it: confirm the lowering to do so.`);
    }
    await tx.connectorTool.update({ where: { connectorId_upstreamName: { connectorId: connector.id, upstreamName: toolName } }, data: { scopeOverride: scope } });
    await audit(tx, by, 'connector.tool_scope_changed', {
      slug,
      tool: toolName,
      before: { override: before.scopeOverride, scope: before.scope },
      after: { override: after.scopeOverride, scope: after.scope },
    });
    return after;
  });
}
