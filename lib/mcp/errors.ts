// JSON-RPC errors as typed values: each carries its JSON-RPC code, the HTTP status it is sent with, and
// any headers. `jsonRpcError` in respond.ts is the one place they become bytes on the wire.
export const JSON_RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** MCP up to 2025-11-25: resource not found (2026-07-28 uses -32602). */
  RESOURCE_NOT_FOUND: -32002,
  /** Server-defined: authentication or authorization refused at the HTTP level (401, 403). */
  UNAUTHORIZED: -32001,
  /** Server-defined: the caller's role does not allow this request. */
  FORBIDDEN: -32003,
  /** Server-defined: the rate limit is spent (429). */
  RATE_LIMITED: -32029,
  /** MCP 2026-07-28: a standard header is missing or disagrees with the body. */
  HEADER_MISMATCH: -32020,
  /** MCP 2026-07-28: the requested protocol version is not supported (data: supported, requested). */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

export type JsonRpcId = string | number | null;

/** Whose call was refused, when the refusal came after the grant was found: the call log records it for the org. */
export type CallSubject = { personId: string; orgId: string; clientId: string; grantId: string };

export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus: number,
    readonly options: { data?: unknown; headers?: Record<string, string>; subject?: CallSubject } = {},
  ) {
    super(message);
    this.name = 'McpError';
  }
}

export const parseError = () => new McpError(JSON_RPC.PARSE_ERROR, 'Parse error', 400);
export const invalidRequest = (message = 'Invalid Request', status = 400) => new McpError(JSON_RPC.INVALID_REQUEST, message, status);
