// The gates a tool call must pass, in order, for direct calls and execute_tool alike: restriction by an
// org admin, the connection's scope, the role's permissions, then the arguments.
import { hasPermission } from '@/lib/auth/permissions';
import type { z } from 'zod';
import type { Caller } from './caller';
import { invalidArguments, missingScope, restricted, roleCannot, type Refusal } from './refusals';
import type { ToolDefinition } from './tools/definition';

export type GateOutcome = { ok: true; input: unknown } | { ok: false; refusal: Refusal };

export async function passGates(caller: Caller, tool: ToolDefinition, args: unknown): Promise<GateOutcome> {
  if (caller.restrictedTools.has(tool.name)) return { ok: false, refusal: restricted(caller, tool.name) };
  if (tool.scope && !caller.scopes.includes(tool.scope)) return { ok: false, refusal: missingScope(caller, tool.name, tool.scope) };
  if (!hasPermission(caller, 'tool:execute')) return { ok: false, refusal: roleCannot(caller, tool.name, 'running tools') };
  if (tool.permission && !hasPermission(caller, tool.permission)) {
    return { ok: false, refusal: roleCannot(caller, tool.name, `"${tool.permission}"`) };
  }
  const parsed = (tool.input as z.ZodType).safeParse(args ?? {});
  if (!parsed.success) {
    return { ok: false, refusal: invalidArguments(tool.name, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ')) };
  }
  return { ok: true, input: parsed.data };
}
