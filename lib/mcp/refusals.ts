// In-band refusals of tool calls (docs/protocol.md §6): HTTP 200 with `isError: true`, worded for the model to relay
// to the person. A 403 would be swallowed by the client's HTTP layer; this reaches the conversation.
import { MCP_SCOPES, type McpScope } from '@/lib/oauth/scopes';
import type { CallOutcome } from './call-outcome';
import type { UpstreamErrorKind } from '@/lib/connectors/upstream-errors';
import type { Caller } from './caller';
import { insufficientScopeChallenge } from './challenges';

/** The call outcomes of in-band refusals. */
export type RefusalKind = Extract<
  CallOutcome,
  'refused_scope' | 'refused_role' | 'restricted' | 'invalid_arguments' | 'unknown_tool' | 'tool_error' | 'held_for_review' | 'upstream_error' | 'upstream_timeout' | 'circuit_open'
>;

export type Refusal = { kind: RefusalKind; text: string; headers?: Record<string, string> };

export function missingScope(caller: Caller, tool: string, scope: McpScope): Refusal {
  const held = caller.scopes.length ? caller.scopes.join(', ') : 'none';
  return {
    kind: 'refused_scope',
    text:
      `The tool "${tool}" needs the "${MCP_SCOPES[scope]}" permission (${scope}), which was not ticked when this app was connected. ` +
      `This connection holds: ${held}. A connection's permissions never change after approval: to fix this, disconnect and reconnect the app, and tick "${MCP_SCOPES[scope]}" on the consent screen.`,
    headers: { 'WWW-Authenticate': insufficientScopeChallenge(scope) },
  };
}

export function roleCannot(caller: Caller, tool: string, what: string): Refusal {
  return {
    kind: 'refused_role',
    text:
      `The tool "${tool}" cannot run: ${caller.personName}'s role in ${caller.orgName} is "${caller.role}", which does not allow ${what}. ` +
      `This is a role problem, not a connection problem: reconnecting the app will not help. An admin of ${caller.orgName} can change the role.`,
  };
}

export function restricted(caller: Caller, tool: string): Refusal {
  return {
    kind: 'restricted',
    text: `The tool "${tool}" is turned off for ${caller.orgName} by an admin of the organization. Reconnecting will not change that; ask an admin of ${caller.orgName} if you need it.`,
  };
}

export function invalidArguments(tool: string, problems: string): Refusal {
  return { kind: 'invalid_arguments', text: `The arguments for "${tool}" are invalid: ${problems}` };
}

export function unknownTool(tool: string): Refusal {
  return { kind: 'unknown_tool', text: `There is no tool named "${tool}". Call tools/list to see the available tools.` };
}

export function toolFailed(tool: string): Refusal {
  return { kind: 'tool_error', text: `The tool "${tool}" failed unexpectedly. Try again later.` };
}

/** A connector, as the texts name it: its name and its slug. */
type NamedConnector = { name: string; slug: string };

function connectorLabel(connector: NamedConnector): string {
  return `the connector "${connector.name}" (${connector.slug})`;
}

export function heldForReview(tool: string, connector: NamedConnector): Refusal {
  return {
    kind: 'held_for_review',
    text:
      `The tool "${tool}" is held for review: ${connectorLabel(connector)} changed its definition, or added it, since an instance admin approved its tools. ` +
      'It cannot be used until an instance admin approves it. Reconnecting will not change that.',
  };
}

/** An upstream's failure to answer a call, in band, naming the connector and what went wrong. */
export function upstreamFailed(tool: string, connector: NamedConnector, failure: { kind: UpstreamErrorKind; message: string }): Refusal {
  return {
    kind: failure.kind === 'timeout' ? 'upstream_timeout' : 'upstream_error',
    text: `The tool "${tool}" could not run: ${connectorLabel(connector)} failed: ${failure.message}. Try again later; if it keeps failing, tell an admin.`,
  };
}

export function circuitOpen(tool: string, connector: NamedConnector, failures: number, openSeconds: number, retryInSeconds: number): Refusal {
  return {
    kind: 'circuit_open',
    text:
      `The tool "${tool}" could not run: ${connectorLabel(connector)} failed ${failures} times in a row, so Gatehouse stops calling it for ${openSeconds} s. ` + `Try again in ${retryInSeconds} s.`,
  };
}
