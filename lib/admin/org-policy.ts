// Org-wide switches an admin turns (docs/protocol.md §7): which tools are off, and whether the plan is active.
// /mcp reads both on every call, so a change bites on the next request.
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { PlanStatus } from '@/lib/generated/prisma/enums';
import { findTool, TOOLS } from '@/lib/mcp/tools';
import type { OrgAdmin } from './access';
import { notFound } from './errors';

export type ToolSetting = { name: string; title: string; description: string; scope: string | null; restricted: boolean };

export async function toolSettings(orgId: string): Promise<ToolSetting[]> {
  const restricted = new Set((await db().toolRestriction.findMany({ where: { orgId }, select: { toolName: true } })).map((row) => row.toolName));
  return TOOLS.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, scope: tool.scope, restricted: restricted.has(tool.name) }));
}

export async function setToolRestricted(admin: OrgAdmin, toolName: string, restricted: boolean, ip: string): Promise<void> {
  if (!findTool(toolName)) throw notFound(`There is no tool named "${toolName}".`);
  await inTransaction(async (tx) => {
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
