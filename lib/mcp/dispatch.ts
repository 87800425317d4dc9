// Routes one JSON-RPC request to its method (docs/protocol.md §6 step 8), under the rules of its protocol version.
// Protocol errors are thrown as McpError; tool refusals come back in band (HTTP 200, isError: true).
import { z } from 'zod';
import { isMcpScope } from '@/lib/oauth/scopes';
import type { CallOutcome } from './call-outcome';
import type { Caller } from './caller';
import { insufficientScopeChallenge } from './challenges';
import { JSON_RPC, McpError } from './errors';
import { passGates, toolAvailability } from './gates';
import { getPrompt, listPrompts } from './prompts';
import { invalidArguments, toolFailed, unknownTool, type Refusal } from './refusals';
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
};

const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
};

/** Methods whose results are lists (and carry cache hints under 2026-07-28). */
const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read', 'server/discover']);

export async function dispatch(caller: Caller, rules: VersionRules, method: string, params: Record<string, unknown>): Promise<Dispatched> {
  const dispatched = await route(caller, rules, method, params);
  if (rules.resultType) dispatched.result = { resultType: 'complete', ...dispatched.result };
  if (rules.cacheHints && LIST_METHODS.has(method)) dispatched.result = { ...dispatched.result, ...CACHE_HINTS };
  if (rules.serverInfoInMeta) {
    dispatched.result = { ...dispatched.result, _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };
  }
  return dispatched;
}

async function route(caller: Caller, rules: VersionRules, method: string, params: Record<string, unknown>): Promise<Dispatched> {
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
      const listed = toolAvailability(caller).filter(({ closed }) => closed?.gate !== 'restricted');
      return { outcome: 'ok', result: { tools: listed.map(({ tool }) => describeTool(tool)) } };
    }
    case 'tools/call':
      return callTool(caller, params);
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

async function callTool(caller: Caller, params: Record<string, unknown>): Promise<Dispatched> {
  const name = requireString(params, 'name');
  const tool = findTool(name);
  if (!tool) throw new McpError(JSON_RPC.INVALID_PARAMS, `Unknown tool: ${name}`, 200);

  let target: ToolDefinition = tool;
  let args: unknown = params.arguments ?? {};
  if (tool.name === 'execute_tool') {
    // Only a naming indirection: execute_tool's own gates (a restriction on it, the role's tool:execute,
    // its argument shape), then the named tool's gates exactly as a direct call meets them.
    const outer = await passGates(caller, tool, args);
    if (!outer.ok) return refused(tool.name, outer.refusal);
    const { name: innerName, arguments: innerArgs } = outer.input as { name: string; arguments: Record<string, unknown> };
    const inner = findTool(innerName);
    if (!inner) return refused(innerName, unknownTool(innerName));
    if (inner.name === 'execute_tool') return refused(tool.name, invalidArguments(tool.name, 'execute_tool cannot run itself'));
    target = inner;
    args = innerArgs;
  }

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
