// Routes one JSON-RPC request to its method (docs/protocol.md §6 step 8), under the rules of its protocol version.
// Protocol errors are thrown as McpError; tool refusals come back in band (HTTP 200, isError: true).
import { z } from 'zod';
import { forwardToolCall, CIRCUIT_FAILURES, CIRCUIT_OPEN_MS } from '@/lib/connectors/forward';
import { IDENTITY_HEADER, identityAssertion } from '@/lib/connectors/identity-assertion';
import { type CalledConnectorTool, calledConnectorTool, type ListedConnectorTool, listedConnectorTools } from '@/lib/connectors/served';
import { isMcpScope } from '@/lib/oauth/scopes';
import type { CallOutcome } from './call-outcome';
import type { Caller, NamedConnectorTool } from './caller';
import { insufficientScopeChallenge } from './challenges';
import { JSON_RPC, McpError } from './errors';
import { type GatedTool, passConnectorGates, passGates, toolAvailability } from './gates';
import { getPrompt, listPrompts } from './prompts';
import { circuitOpen, invalidArguments, toolFailed, unknownTool, upstreamFailed, type Refusal } from './refusals';
import { listResources, readResource } from './resources';
import { SERVER_INFO, SERVER_INSTRUCTIONS } from './server-info';
import { findTool } from './tools';
import type { ToolDefinition } from './tools/definition';
import { CACHE_HINTS, INITIALIZE_VERSIONS, LATEST_INITIALIZE_VERSION, SUPPORTED_VERSIONS, type VersionRules } from './versions';

export type Dispatched = {
  result: Record<string, unknown>;
  headers?: Record<string, string>;
  toolName?: string;
  /** For the call log: ok, tool_error, refused_scope, refused_role, restricted, invalid_arguments… */
  outcome: CallOutcome;
  /** For the call log, when the tool is a connector's: its slug, and the upstream's latency if it was called. */
  connector?: string;
  upstreamLatencyMs?: number;
};

const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
};

/** Methods whose results are lists (and carry cache hints under 2026-07-28). */
const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read', 'server/discover']);

/**
 * `signal` is aborted when the caller goes away: a forwarded call is then cancelled upstream. `named` is a
 * connector tool already read with the caller (caller.ts), used only for a call to exactly that name.
 */
export async function dispatch(
  caller: Caller,
  rules: VersionRules,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  named: NamedConnectorTool | null = null,
): Promise<Dispatched> {
  const dispatched = await route(caller, rules, method, params, signal, named);
  if (rules.resultType) dispatched.result = { resultType: 'complete', ...dispatched.result };
  if (rules.cacheHints && LIST_METHODS.has(method)) dispatched.result = { ...dispatched.result, ...CACHE_HINTS };
  if (rules.serverInfoInMeta) {
    dispatched.result = { ...dispatched.result, _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };
  }
  return dispatched;
}

async function route(caller: Caller, rules: VersionRules, method: string, params: Record<string, unknown>, signal: AbortSignal, named: NamedConnectorTool | null): Promise<Dispatched> {
  const legacy = rules.handshake === 'initialize';
  switch (method) {
    case 'initialize':
      if (!legacy) break;
      return { outcome: 'ok', result: initialize(params) };
    case 'ping':
      if (!legacy) break;
      return { outcome: 'ok', result: {} };
    case 'server/discover':
      if (legacy) break;
      return {
        outcome: 'ok',
        result: { supportedVersions: SUPPORTED_VERSIONS, capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS },
      };
    case 'tools/list': {
      requireAnyMcpScope(caller);
      // Only restricted tools are hidden: one whose scope is missing is listed, so the step-up challenge can get it.
      // Connector tools come from the stored catalog of the connectors the org switched on: no upstream is asked.
      const connectorTools = (await listedConnectorTools(caller.orgId)).filter(({ exposedName }) => !caller.restrictedTools.has(exposedName));
      const listed = toolAvailability(caller, connectorTools.map(gatedListed)).filter(({ closed }) => closed?.gate !== 'restricted');
      return { outcome: 'ok', result: { tools: [...listed.map(({ tool }) => describeTool(tool)), ...connectorTools.map(describeConnectorTool)] } };
    }
    case 'tools/call':
      return callTool(caller, params, signal, named);
    case 'resources/list':
      requireAnyMcpScope(caller);
      return { outcome: 'ok', result: listResources(caller) };
    case 'resources/templates/list':
      requireAnyMcpScope(caller);
      return { outcome: 'ok', result: { resourceTemplates: [] } };
    case 'resources/read':
      requireScope(caller, 'mcp:read');
      return { outcome: 'ok', result: await readResource(caller, requireString(params, 'uri'), rules) };
    case 'prompts/list':
      requireAnyMcpScope(caller);
      return { outcome: 'ok', result: listPrompts(caller) };
    case 'prompts/get': {
      requireScope(caller, 'mcp:read');
      const args = params.arguments;
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw new McpError(JSON_RPC.INVALID_PARAMS, 'arguments must be an object', 200);
      }
      return { outcome: 'ok', result: await getPrompt(caller, requireString(params, 'name'), (args ?? {}) as Record<string, unknown>) };
    }
  }
  throw new McpError(JSON_RPC.METHOD_NOT_FOUND, `Method not found: ${method}`, rules.unknownMethodStatus);
}

function initialize(params: Record<string, unknown>) {
  const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
  return {
    // Echo the client's version when supported, else offer the latest one with this handshake.
    protocolVersion: (INITIALIZE_VERSIONS as string[]).includes(requested) ? requested : LATEST_INITIALIZE_VERSION,
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: SERVER_INSTRUCTIONS,
  };
}

async function callTool(caller: Caller, params: Record<string, unknown>, signal: AbortSignal, named: NamedConnectorTool | null): Promise<Dispatched> {
  const name = requireString(params, 'name');
  const args: unknown = params.arguments ?? {};
  const tool = findTool(name);
  if (!tool) {
    const connectorTool = await connectorToolNamed(caller, name, named);
    if (!connectorTool) throw new McpError(JSON_RPC.INVALID_PARAMS, `Unknown tool: ${name}`, 200);
    return callConnectorTool(caller, connectorTool, args, signal);
  }
  if (tool.name !== 'execute_tool') return callBuiltInTool(caller, tool, args);

  // Only a naming indirection: execute_tool's own gates (a restriction on it, the role's tool:execute,
  // its argument shape), then the named tool's gates exactly as a direct call meets them.
  const outer = await passGates(caller, tool, args);
  if (!outer.ok) return refused(tool.name, outer.refusal);
  const { name: innerName, arguments: innerArgs } = outer.input as { name: string; arguments: Record<string, unknown> };
  if (innerName === 'execute_tool') return refused(tool.name, invalidArguments(tool.name, 'execute_tool cannot run itself'));
  const inner = findTool(innerName);
  if (inner) return callBuiltInTool(caller, inner, innerArgs);
  const connectorTool = await connectorToolNamed(caller, innerName, named);
  if (connectorTool) return callConnectorTool(caller, connectorTool, innerArgs, signal);
  return refused(innerName, unknownTool(innerName));
}

/** The connector tool of that name: the one read with the caller when it is that name, else read now. */
function connectorToolNamed(caller: Caller, name: string, named: NamedConnectorTool | null): Promise<CalledConnectorTool | null> {
  return named?.name === name ? Promise.resolve(named.tool) : calledConnectorTool(caller.orgId, name);
}

async function callBuiltInTool(caller: Caller, target: ToolDefinition, args: unknown): Promise<Dispatched> {
  const gate = await passGates(caller, target, args);
  if (!gate.ok) return refused(target.name, gate.refusal);
  try {
    const output = await target.run(caller, gate.input);
    const content: { type: 'text'; text: string }[] = [{ type: 'text', text: output.text }];
    if (output.structured) content.push({ type: 'text', text: JSON.stringify(output.structured) });
    return {
      toolName: target.name,
      outcome: 'ok',
      result: { content, ...(output.structured ? { structuredContent: output.structured } : {}), isError: false },
    };
  } catch (error) {
    console.error(`mcp: tool ${target.name} failed`, error);
    return refused(target.name, toolFailed(target.name));
  }
}

/**
 * A connector's tool: the same gates, then the call forwarded with Gatehouse's own credential (never the
 * caller's). The upstream's result passes on unchanged; its failures come back in band, naming the connector.
 */
async function callConnectorTool(caller: Caller, tool: CalledConnectorTool, args: unknown, signal: AbortSignal): Promise<Dispatched> {
  const logged = { toolName: tool.exposedName, connector: tool.connector.slug };
  const gate = passConnectorGates(caller, { name: tool.exposedName, scope: tool.scope, permission: null, held: tool.held, connector: tool.connector }, args);
  if (!gate.ok) return { ...refused(tool.exposedName, gate.refusal), ...logged };
  const forwarded = await forwardToolCall({
    connector: tool.connector,
    upstreamName: tool.upstreamName,
    args: gate.input as Record<string, unknown>,
    signal,
    // Who is acting, for the upstream to verify (docs/connectors.md, Who is acting).
    headers: async () => ({ [IDENTITY_HEADER]: await identityAssertion(caller, tool.connector.url) }),
  });
  const upstreamLatencyMs = forwarded.upstreamMs ?? undefined;
  if (forwarded.ok) {
    // The upstream's own isError result is passed on as it is, and logged as the tool's error.
    return { ...logged, upstreamLatencyMs, outcome: forwarded.result.isError ? 'tool_error' : 'ok', result: forwarded.result };
  }
  const { failure } = forwarded;
  if (failure === 'aborted') {
    // The caller went away: nobody reads this answer.
    return { ...logged, upstreamLatencyMs, outcome: 'aborted', result: { content: [{ type: 'text', text: 'The call was cancelled.' }], isError: true } };
  }
  const refusal =
    failure.kind === 'circuit_open'
      ? circuitOpen(tool.exposedName, tool.connector, CIRCUIT_FAILURES, CIRCUIT_OPEN_MS / 1000, failure.retryInSeconds)
      : upstreamFailed(tool.exposedName, tool.connector, failure);
  return { ...refused(tool.exposedName, refusal), ...logged, upstreamLatencyMs };
}

function refused(toolName: string, refusal: Refusal): Dispatched {
  return {
    toolName,
    outcome: refusal.kind,
    headers: refusal.headers,
    result: { content: [{ type: 'text', text: refusal.text }], isError: true },
  };
}

function describeTool(tool: ToolDefinition) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-2020-12', io: 'input' }),
    ...(tool.output ? { outputSchema: z.toJSONSchema(tool.output, { target: 'draft-2020-12', io: 'output' }) } : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

function gatedListed(tool: ListedConnectorTool): GatedTool {
  return { name: tool.exposedName, scope: tool.scope, permission: null };
}

/** A connector tool as tools/list shows it: the pinned definition under its exposed name. */
function describeConnectorTool({ exposedName, definition }: ListedConnectorTool) {
  return {
    name: exposedName,
    ...(definition.title ? { title: definition.title } : {}),
    ...(definition.description ? { description: definition.description } : {}),
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
  };
}

/** Lists need some mcp:* scope; reads need the named one (else the MCP step-up: 403 insufficient_scope). */
function requireAnyMcpScope(caller: Caller): void {
  if (!caller.scopes.some(isMcpScope)) throw scopeChallenge('mcp:read mcp:write');
}

function requireScope(caller: Caller, scope: 'mcp:read' | 'mcp:write'): void {
  if (!caller.scopes.includes(scope)) throw scopeChallenge(scope);
}

function scopeChallenge(scope: string): McpError {
  return new McpError(JSON_RPC.FORBIDDEN, `This connection lacks the ${scope} scope: reconnect the app and tick it on the consent screen.`, 403, {
    headers: { 'WWW-Authenticate': insufficientScopeChallenge(scope) },
  });
}

function requireString(params: Record<string, unknown>, field: string): string {
  const value = params[field];
  if (typeof value !== 'string' || !value) throw new McpError(JSON_RPC.INVALID_PARAMS, `params.${field} must be a non-empty string`, 200);
  return value;
}
