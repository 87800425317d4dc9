// Org-wide switches an admin turns (docs/protocol.md §7): which tools are off, and whether the plan is active.
// /mcp reads both on every call, so a change bites on the next request. The tools are the built-in ones and
// those of the connectors switched on for the org (docs/connectors.md), each switched by the name /mcp lists.
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { isToolOfConnectorOn, offeredConnectors } from '@/lib/connectors/org-view';
import { inTransaction } from '@/lib/db/transaction';
import type { PlanStatus } from '@/lib/generated/prisma/enums';
import { findTool, TOOLS } from '@/lib/mcp/tools';
import type { OrgAdmin } from './access';
import { notFound } from './errors';

/** `held`: a connector tool waiting for an instance admin's approval, not on /mcp until then whatever its switch. */
export type ToolSetting = { name: string; title: string; description: string; scope: string | null; restricted: boolean; held?: boolean };

/** The tools of one connector switched on for the org, under its name. */
export type ConnectorToolGroup = { slug: string; name: string; tools: ToolSetting[] };

export type ToolSettings = { builtIn: ToolSetting[]; connectors: ConnectorToolGroup[] };

export async function toolSettings(orgId: string): Promise<ToolSettings> {
  const restricted = new Set((await db().toolRestriction.findMany({ where: { orgId }, select: { toolName: true } })).map((row) => row.toolName));
  const builtIn = TOOLS.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, scope: tool.scope, restricted: restricted.has(tool.name) }));
  const connectors = (await offeredConnectors(orgId))
    .filter((connector) => connector.on)
    .map((connector) => ({
      slug: connector.slug,
      name: connector.name,
      tools: connector.tools.map((tool) => ({
        name: tool.exposedName,
        title: tool.title,
        description: tool.description,
        scope: tool.scope,
        restricted: tool.restricted,
        held: tool.status === 'held',
      })),
    }));
  return { builtIn, connectors };
}

/**
 * Switches a tool off or on for the org. Only names the Tools tab shows may be switched — a built-in
 * tool's, or a tool's of a connector switched on for this org — checked in the change's transaction:
 * any other name (made up, another org's connector tool, one of a connector merely offered) is answered
 * as unknown, so that nothing is learnt of what other orgs have.
 */
export async function setToolRestricted(admin: OrgAdmin, toolName: string, restricted: boolean, ip: string): Promise<void> {
  await inTransaction(async (tx) => {
    if (!findTool(toolName) && !(await isToolOfConnectorOn(tx, admin.org.id, toolName))) throw notFound(`There is no tool named "${toolName}".`);
    const key = { orgId_toolName: { orgId: admin.org.id, toolName } };
    const existing = await tx.toolRestriction.findUnique({ where: key });
    if (Boolean(existing) === restricted) return; // already so: nothing to record
    if (restricted) await tx.toolRestriction.create({ data: { orgId: admin.org.id, toolName, createdById: admin.personId } });
    else await tx.toolRestriction.delete({ where: key });
    await recordAudit({ type: restricted ? 'tool.restricted' : 'tool.unrestricted', orgId: admin.org.id, actorPersonId: admin.personId, ip, data: { tool: toolName } }, tx);
  });
}

export async function setPlanStatus(admin: OrgAdmin, status: PlanStatus, ip: string): Promise<void> {
  await inTransaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: admin.org.id }, select: { planStatus: true } });
    if (before.planStatus === status) return;
    await tx.organization.update({ where: { id: admin.org.id }, data: { planStatus: status } });
    await recordAudit({ type: 'org.plan_changed', orgId: admin.org.id, actorPersonId: admin.personId, ip, data: { from: before.planStatus, to: status } }, tx);
  });
}
