// The gates a tool call must pass, in order, for direct calls and execute_tool alike: restriction by an
// org admin, the connection's scope, the role's permissions, then the arguments. A prompt or resource
// built from a tool's data meets the same first three (toolAccess), so that switching a tool off, or a
// role that may not use it, hides its data on every path.
import { hasPermission } from '@/lib/auth/permissions';
import type { z } from 'zod';
import { containsUnstorableText } from '@/lib/db/storable-text';
import type { Caller } from './caller';
import { JSON_RPC, McpError } from './errors';
import { invalidArguments, missingScope, restricted, roleCannot, type Refusal } from './refusals';
import type { ToolDefinition } from './tools/definition';

export type GateOutcome = { ok: true; input: unknown } | { ok: false; refusal: Refusal };

/** Whether the caller may have the tool's data at all: restriction, scope, role. Null when it may. */
export function toolAccess(caller: Caller, tool: ToolDefinition): Refusal | null {
  if (caller.restrictedTools.has(tool.name)) return restricted(caller, tool.name);
  if (tool.scope && !caller.scopes.includes(tool.scope)) return missingScope(caller, tool.name, tool.scope);
  if (!hasPermission(caller, 'tool:execute')) return roleCannot(caller, tool.name, 'running tools');
  if (tool.permission && !hasPermission(caller, tool.permission)) return roleCannot(caller, tool.name, `"${tool.permission}"`);
  return null;
}

/**
 * For a prompt or resource (`what`) that shows the tool's data: the protocol error that refuses it — 403,
 * with the step-up challenge when the scope is missing — or null when the caller may have it.
 */
export function refuseToolData(caller: Caller, tool: ToolDefinition, what: string): McpError | null {
  const refusal = toolAccess(caller, tool);
  if (!refusal) return null;
  return new McpError(JSON_RPC.FORBIDDEN, `${what} shows what the tool "${tool.name}" reads. ${refusal.text}`, 403, { headers: refusal.headers });
}

/**
 * Whether resources/list or prompts/list shows what carries the tool's data: not when an admin switched
 * the tool off or the role may not use it; yes when only the scope is missing, since getting it then
 * answers the step-up challenge (MCP authorization, scope challenge handling), as tools/list does.
 */
export function listsToolData(caller: Caller, tool: ToolDefinition): boolean {
  const refusal = toolAccess(caller, tool);
  if (!refusal) return true;
  // Only the scope: with it granted, the data would be given (else the step-up ends in a role refusal).
  return refusal.kind === 'refused_scope' && tool.scope !== null && toolAccess({ ...caller, scopes: [...caller.scopes, tool.scope] }, tool) === null;
}

export async function passGates(caller: Caller, tool: ToolDefinition, args: unknown): Promise<GateOutcome> {
  const refusal = toolAccess(caller, tool);
  if (refusal) return { ok: false, refusal };
  // For every tool: text PostgreSQL cannot store (NUL, unpaired surrogates) could only fail in the
  // database, as a tool_error for what is the caller's mistake.
  if (containsUnstorableText(args)) {
    return { ok: false, refusal: invalidArguments(tool.name, 'they hold characters that cannot be stored (NUL or broken Unicode)') };
  }
  const parsed = (tool.input as z.ZodType).safeParse(args ?? {});
  if (!parsed.success) {
    return { ok: false, refusal: invalidArguments(tool.name, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ')) };
  }
  return { ok: true, input: parsed.data };
}
