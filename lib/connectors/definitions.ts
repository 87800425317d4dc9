// Connector tool definitions (docs/connectors.md): what an upstream MCP server says its tools are, made
// safe to store and to compare. Pure: no database, no network.
//
// Everything here comes from an upstream Gatehouse does not control. Names and descriptions are untrusted
// text: limited in length, refused when they carry what PostgreSQL cannot store, never rendered as markup.
// A definition's hash is over its canonical JSON (object keys sorted at every depth), so that an upstream
// that merely reorders keys is not a change, while any change of wording, schema or annotations is
// (pinned definitions, docs/connectors.md: against a tool that rewrites itself after it was approved).
import { createHash } from 'node:crypto';
import { containsUnstorableText } from '@/lib/db/storable-text';

/** A connector's slug: it prefixes its tools' names, so no underscores (the separator is `__`). */
export const CONNECTOR_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/**
 * Exposed tool names: at most 64 characters of `[A-Za-z0-9_-]`, the strictest rule among the clients
 * (Claude's API); every client accepts a name that meets it.
 */
export const EXPOSED_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const LIMITS = {
  name: 128,
  title: 256,
  description: 8 * 1024,
  /** The canonical JSON of one tool's schemas and annotations together. */
  definitionBytes: 64 * 1024,
  toolsPerConnector: 500,
} as const;

/** One tool as stored: the upstream's own name, and what Gatehouse pins. */
export type ToolDefinition = {
  /** The upstream's name, sent back on tools/call. */
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
};

/** Why a tool the upstream lists cannot be offered as it is. */
export type DefinitionProblem = { name: string; problem: string };

export function connectorSlugProblem(slug: string): string | null {
  if (CONNECTOR_SLUG.test(slug)) return null;
  return 'A connector slug is 1 to 32 lower-case letters, digits and hyphens, starting and ending with a letter or digit (no underscores: it prefixes tool names with "__").';
}

/** `<slug>__<tool>`, or null when that breaks the exposed-name rule. */
export function exposedToolName(slug: string, upstreamName: string): string | null {
  const name = `${slug}__${upstreamName}`;
  return EXPOSED_TOOL_NAME.test(name) ? name : null;
}

/**
 * One entry of an upstream's `tools/list` as a definition, or the problem that keeps it out. Only the
 * fields Gatehouse passes on are kept; anything else the upstream sends is dropped, never stored.
 */
export function readToolDefinition(entry: unknown): ToolDefinition | DefinitionProblem {
  const tool = isObject(entry) ? entry : {};
  const name = typeof tool.name === 'string' ? tool.name : '';
  const label = name.slice(0, LIMITS.name) || '(unnamed)';
  if (!name) return { name: label, problem: 'it has no name' };
  if (name.length > LIMITS.name) return { name: label, problem: `its name is longer than ${LIMITS.name} characters` };
  const text = (field: string, limit: number): string | null | DefinitionProblem => {
    const value = own(tool, field);
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') return { name: label, problem: `its ${field} is not text` };
    if (value.length > limit) return { name: label, problem: `its ${field} is longer than ${limit} characters` };
    return value;
  };
  const title = text('title', LIMITS.title);
  if (isProblem(title)) return title;
  const description = text('description', LIMITS.description);
  if (isProblem(description)) return description;
  const inputSchema = own(tool, 'inputSchema');
  if (!isObject(inputSchema) || inputSchema.type !== 'object') return { name: label, problem: 'its inputSchema is not an object schema' };
  const outputSchema = own(tool, 'outputSchema');
  if (outputSchema !== undefined && outputSchema !== null && !isObject(outputSchema)) return { name: label, problem: 'its outputSchema is not an object' };
  const annotations = own(tool, 'annotations');
  if (annotations !== undefined && annotations !== null && !isObject(annotations)) return { name: label, problem: 'its annotations are not an object' };
  const definition: ToolDefinition = {
    name,
    title,
    description,
    inputSchema,
    outputSchema: isObject(outputSchema) ? outputSchema : null,
    annotations: isObject(annotations) ? annotations : null,
  };
  if (containsUnstorableText(definition)) return { name: label, problem: 'it contains text that cannot be stored (NUL or broken Unicode)' };
  if (Buffer.byteLength(canonicalJson(definition)) > LIMITS.definitionBytes) return { name: label, problem: `its definition is larger than ${LIMITS.definitionBytes} bytes` };
  return definition;
}

export function isProblem(value: unknown): value is DefinitionProblem {
  return isObject(value) && typeof value.problem === 'string';
}

/**
 * JSON with object keys sorted at every depth (array order kept: it means something in a schema), so
 * that equal definitions have equal text whatever order the upstream wrote their keys in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}

/** The hash a definition is pinned by: SHA-256 of its canonical JSON. */
export function definitionHash(definition: ToolDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

export type ToolScope = 'mcp:read' | 'mcp:write';

/**
 * What a connector tool needs (docs/connectors.md, Gates): an instance admin's override when there is one,
 * else mcp:read when the tool says it only reads, else mcp:write.
 */
export function requiredScope(definition: Pick<ToolDefinition, 'annotations'>, override: string | null = null): ToolScope {
  if (override === 'mcp:read' || override === 'mcp:write') return override;
  return definition.annotations?.readOnlyHint === true ? 'mcp:read' : 'mcp:write';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
