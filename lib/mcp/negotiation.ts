// Which protocol revision a request speaks (docs/protocol.md §6 step 7), and the extra checks of 2026-07-28: the
// version and client capabilities in params._meta, and the Mcp-Method / Mcp-Name headers, which must
// agree with the body.
import type { JsonRpcMessage } from './envelope';
import { JSON_RPC, McpError } from './errors';
import { DEFAULT_VERSION, isSupported, SUPPORTED_VERSIONS, VERSIONS, type VersionRules } from './versions';

export function negotiateVersion(header: string | null): VersionRules {
  if (header === null || header.trim() === '') return VERSIONS[DEFAULT_VERSION];
  const requested = header.trim();
  if (!isSupported(requested)) {
    throw new McpError(JSON_RPC.UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', 400, {
      data: { supported: SUPPORTED_VERSIONS, requested },
    });
  }
  return VERSIONS[requested];
}

/** Returns the W3C trace id from params._meta.traceparent when the revision carries trace context. */
export function checkVersionRules(rules: VersionRules, headers: Headers, message: JsonRpcMessage): string | null {
  const meta = (message.params._meta ?? {}) as Record<string, unknown>;
  const isRequest = message.id !== undefined;
  if (rules.requiresRequestMeta && isRequest) {
    const version = meta['io.modelcontextprotocol/protocolVersion'];
    const capabilities = meta['io.modelcontextprotocol/clientCapabilities'];
    if (typeof version !== 'string' || typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
      throw new McpError(JSON_RPC.INVALID_PARAMS, 'Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities', 400);
    }
    if (version !== rules.version) {
      throw mismatch(`MCP-Protocol-Version header value '${rules.version}' does not match body value '${version}'`);
    }
  }
  // The spec defines these headers for requests; on a notification they are checked only when present.
  if (rules.checksStandardHeaders) {
    checkHeader(headers, 'Mcp-Method', message.method, isRequest);
    const name = message.params.name ?? message.params.uri;
    if (['tools/call', 'resources/read', 'prompts/get'].includes(message.method)) {
      checkHeader(headers, 'Mcp-Name', typeof name === 'string' ? name : '', isRequest);
    }
  }
  return rules.readsTraceContext ? traceIdOf(meta.traceparent) : null;
}

/**
 * The tool a 2026-07-28 tools/call names in its Mcp-Name header, read before the body so that a connector
 * tool can be read with the caller, in the same statement (access-lookup.ts). A hint only: the body's name
 * decides, and checkVersionRules refuses a request whose header disagrees with it. Null for any other
 * revision or method, and for a value that is not validly encoded (checkVersionRules then says why).
 */
export function calledToolHint(headers: Headers): string | null {
  const version = headers.get('mcp-protocol-version')?.trim();
  if (!version || !isSupported(version) || !VERSIONS[version].checksStandardHeaders) return null;
  const method = headers.get('mcp-method');
  if (method === null || decodeHeaderValue(method) !== 'tools/call') return null;
  const name = headers.get('mcp-name');
  return name === null ? null : decodeHeaderValue(name);
}

function checkHeader(headers: Headers, name: string, expected: string, required: boolean): void {
  const raw = headers.get(name);
  if (raw === null) {
    if (required) throw mismatch(`Header mismatch: the ${name} header is required`);
    return;
  }
  const value = decodeHeaderValue(raw);
  if (value === null) throw mismatch(`Header mismatch: the ${name} header is not validly encoded`);
  if (value !== expected) throw mismatch(`Header mismatch: ${name} header value '${value}' does not match body value '${expected}'`);
}

/**
 * Values that are not header-safe travel as =?base64?…?=, Base64 (standard alphabet) of their UTF-8 bytes
 * (MCP 2026-07-28, Streamable HTTP). Anything wearing the markers is encoded — clients encode a value that
 * merely looks like them — so a payload that is no such encoding is refused, not compared as text. Buffer
 * decodes leniently (it stops at a bad character, replaces bad UTF-8), hence the round trip and fatal decoder.
 */
function decodeHeaderValue(raw: string): string | null {
  const value = raw.trim();
  if (value.length < 11 || !value.startsWith('=?base64?') || !value.endsWith('?=')) return value;
  const payload = value.slice(9, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) return null;
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== payload.replace(/=+$/, '')) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function mismatch(message: string): McpError {
  return new McpError(JSON_RPC.HEADER_MISMATCH, message, 400);
}

/** W3C Trace Context §3.2.2: version ff, an all-zero trace-id or parent-id make the traceparent invalid, to be ignored. */
function traceIdOf(traceparent: unknown): string | null {
  if (typeof traceparent !== 'string') return null;
  const match = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/.exec(traceparent.trim());
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return null;
  return match[2]!;
}
