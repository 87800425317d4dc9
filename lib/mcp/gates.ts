// The gates a tool call must pass, in order, for direct calls and execute_tool alike: restriction by an
// org admin, the connection's scope, the role's permissions, then the arguments. A prompt or resource
// built from a tool's data meets the same first three (toolAccess), so that switching a tool off, or a
// role that may not use it, hides its data on every path.
import { hasPermission, permissionsOf, type Permission } from '@/lib/auth/permissions';
import type { Role } from '@/lib/generated/prisma/enums';
import type { McpScope } from '@/lib/oauth/scopes';
import type { z } from 'zod';
import { containsUnstorableText } from '@/lib/db/storable-text';
import type { Caller } from './caller';
import { JSON_RPC, McpError } from './errors';
import { heldForReview, invalidArguments, missingScope, restricted, roleCannot, type Refusal } from './refusals';
import { TOOLS } from './tools';
import type { ToolDefinition } from './tools/definition';

export type GateOutcome = { ok: true; input: unknown } | { ok: false; refusal: Refusal };

/** What the gates look at of a tool, built-in or a connector's: its name, scope and extra permission. */
export type GatedTool = Pick<ToolDefinition, 'name' | 'scope' | 'permission'>;

/** What the first three gates look at: the connection's scopes, the role's permissions, the org's restrictions. */
export type ToolSubject = Pick<Caller, 'permissions' | 'scopes' | 'restrictedTools'>;

/** The first of restriction, scope and role that closes a tool to the subject, or null when none does. */
export type ClosedGate = { gate: 'restricted' } | { gate: 'scope'; scope: McpScope } | { gate: 'role'; permission: Permission };

export function closedGate(subject: ToolSubject, tool: GatedTool): ClosedGate | null {
  if (subject.restrictedTools.has(tool.name)) return { gate: 'restricted' };
  if (tool.scope && !subject.scopes.includes(tool.scope)) return { gate: 'scope', scope: tool.scope };
  if (!hasPermission(subject, 'tool:execute')) return { gate: 'role', permission: 'tool:execute' };
  if (tool.permission && !hasPermission(subject, tool.permission)) return { gate: 'role', permission: tool.permission };
  return null;
}

/** Whether the caller may have the tool's data at all: restriction, scope, role. Null when it may. */
export function toolAccess(caller: Caller, tool: GatedTool): Refusal | null {
  const closed = closedGate(caller, tool);
  if (!closed) return null;
  if (closed.gate === 'restricted') return restricted(caller, tool.name);
  if (closed.gate === 'scope') return missingScope(caller, tool.name, closed.scope);
  return roleCannot(caller, tool.name, closed.permission === 'tool:execute' ? 'running tools' : `"${closed.permission}"`);
}

/**
 * Every tool of the registry with the gate that closes it to someone, or null: the one reading of the gates
 * that tools/list (which hides only restricted tools, so that a missing scope can be stepped up to, MCP
 * authorization, scope challenge handling) and the consent screen (which shows what a connection could call)
 * both take. A tool without a scope of its own (execute_tool) defers to its target, so it is open only when
 * some other tool is — a connector's tool (`others`) included.
 */
export function toolAvailability(subject: ToolSubject, others: readonly GatedTool[] = []): { tool: ToolDefinition; closed: ClosedGate | { gate: 'no_target' } | null }[] {
  const gated = TOOLS.map((tool) => ({ tool, closed: closedGate(subject, tool) }));
  const anyTarget = [...gated, ...others.map((tool) => ({ tool, closed: closedGate(subject, tool) }))].some(({ tool, closed }) => tool.scope !== null && closed === null);
  return gated.map(({ tool, closed }) => ({ tool, closed: closed === null && tool.scope === null && !anyTarget ? { gate: 'no_target' as const } : closed }));
}

/** A tool as the consent screen shows it: built-in, or a connector's (exposed name, its title). */
export type AvailableTool = GatedTool & { title: string };

/**
 * The tools someone with this role, these granted scopes and the org's restrictions could call, in tools/list
 * order: the built-in tools, then `others` (the tools of the connectors the org switched on).
 */
export function toolsAvailableTo(subject: { role: Role; scopes: readonly McpScope[]; restrictedTools: ReadonlySet<string> }, others: readonly AvailableTool[] = []): AvailableTool[] {
  const gated: ToolSubject = { permissions: permissionsOf(subject.role), scopes: [...subject.scopes], restrictedTools: subject.restrictedTools };
  const builtIn = toolAvailability(gated, others)
    .filter(({ closed }) => closed === null)
    .map(({ tool }) => tool);
  return [...builtIn, ...others.filter((tool) => closedGate(gated, tool) === null)];
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

/** The most bytes of a connector tool's arguments, as JSON: the upstream checks them against its own schema. */
export const CONNECTOR_ARGUMENTS_BYTES = 256 * 1024;

/**
 * The gates of a connector tool (docs/connectors.md, The gates): the org's restriction, then a hold for
 * review, then the scope its annotations call for and the role's tool:execute — the same code as a
 * built-in tool's — then arguments that are an object within a size limit. The upstream validates them
 * against its own schema; a call refused here never reaches it.
 */
export function passConnectorGates(caller: Caller, tool: GatedTool & { held: boolean; connector: { name: string; slug: string } }, args: unknown): GateOutcome {
  if (caller.restrictedTools.has(tool.name)) return { ok: false, refusal: restricted(caller, tool.name) };
  if (tool.held) return { ok: false, refusal: heldForReview(tool.name, tool.connector) };
  const refusal = toolAccess(caller, tool);
  if (refusal) return { ok: false, refusal };
  const input = args ?? {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, refusal: invalidArguments(tool.name, 'arguments must be an object') };
  if (Buffer.byteLength(JSON.stringify(input)) > CONNECTOR_ARGUMENTS_BYTES) {
    return { ok: false, refusal: invalidArguments(tool.name, `they are larger than ${CONNECTOR_ARGUMENTS_BYTES} bytes`) };
  }
  return { ok: true, input };
}
