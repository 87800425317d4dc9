// The tool registry: one file per tool, listed here in the order tools/list publishes them.
import type { ToolDefinition } from './definition';
import { executeTool } from './execute-tool';
import { listConnectedApps } from './list-connected-apps';
import { listMembers } from './list-members';
import { readAuditLog } from './read-audit-log';
import { revokeConnectedApp } from './revoke-connected-app';
import { whoami } from './whoami';

export const TOOLS: readonly ToolDefinition[] = [whoami, listConnectedApps, revokeConnectedApp, listMembers, readAuditLog, executeTool] as ToolDefinition[];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
