// What became of one POST /mcp request, as the call log records it (lib/audit/call-log.ts). One closed
// list: the console's outcome categories (lib/audit/call-outcomes.ts) must name a category for each value,
// so a new outcome fails to compile there instead of landing in "Other errors" unseen.
import type { McpError } from './errors';

export const CALL_OUTCOMES = [
  // Served.
  'ok',
  'notification',
  // Tool calls refused in band: HTTP 200 with isError (docs/protocol.md §6).
  'refused_scope',
  'refused_role',
  'restricted',
  'invalid_arguments',
  'unknown_tool',
  'tool_error',
  // Connector tools (docs/connectors.md), in band too: a tool held for review, the upstream failing or
  // not answering in time, or failing fast after failing too often.
  'held_for_review',
  'upstream_error',
  'upstream_timeout',
  'circuit_open',
  // Refused at the HTTP level.
  'unauthorized',
  'forbidden',
  'rate_limited',
  'method_not_found',
  'bad_request',
  'jsonrpc_error',
  'unavailable',
  'error',
  // The client went away before its body arrived.
  'aborted',
] as const;

export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** The outcome of a request answered with a JSON-RPC error, from the HTTP status it is sent with. */
export function outcomeOfError(error: McpError): CallOutcome {
  switch (error.httpStatus) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 429:
      return 'rate_limited';
    case 404:
      return 'method_not_found';
    case 500:
      return 'error';
    case 503:
      return 'unavailable';
    default:
      return error.httpStatus >= 400 ? 'bad_request' : 'jsonrpc_error';
  }
}
