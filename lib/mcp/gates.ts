// The gates a tool call must pass, in order, for direct calls and execute_tool alike: restriction by an
// org admin, the connection's scope, the role's permissions, then the arguments.
import { hasPermission } from '@/lib/auth/permissions';
import type { z } from 'zod';
import { containsUnstorableText } from '@/lib/db/storable-text';
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
