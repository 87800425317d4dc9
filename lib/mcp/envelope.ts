// The JSON-RPC 2.0 envelope of one POST /mcp body (docs/protocol.md §6 step 6): parsed and checked before anything
// looks at its method. Batches are refused for every revision: 2025-06-18 removed JSON-RPC batching, and the one
// revision that allowed it (2025-03-26) is served one message per request (docs/protocol.md §6).
import { invalidRequest, parseError, type JsonRpcId } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_METHOD_BYTES = 256;
const MAX_ID_BYTES = 256;

export type JsonRpcMessage = {
  id: JsonRpcId | undefined; // undefined: a notification
  method: string;
  params: Record<string, unknown>;
};

export function parseEnvelope(text: string): JsonRpcMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw parseError();
  }
  if (Array.isArray(value)) throw invalidRequest('Batch requests are not supported');
  if (typeof value !== 'object' || value === null) throw invalidRequest('Invalid Request: the body must be a JSON-RPC request object');
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') throw invalidRequest('Invalid Request: jsonrpc must be "2.0"');
  if (typeof message.method !== 'string' || message.method.length === 0) {
    throw invalidRequest('Invalid Request: method must be a non-empty string');
  }
  if (Buffer.byteLength(message.method) > MAX_METHOD_BYTES) {
    throw invalidRequest(`Invalid Request: method must be at most ${MAX_METHOD_BYTES} bytes`);
  }
  const id = message.id;
  if (Object.hasOwn(message, 'id')) {
    const valid = (typeof id === 'string' && Buffer.byteLength(id) <= MAX_ID_BYTES) || (typeof id === 'number' && Number.isFinite(id));
    if (!valid) {
      throw invalidRequest(typeof id === 'string' ? `Invalid Request: id must be at most ${MAX_ID_BYTES} bytes` : 'Invalid Request: id must be a string or a number');
    }
  }
  const params = message.params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw invalidRequest('Invalid Request: params must be an object');
  }
  return { id: Object.hasOwn(message, 'id') ? (id as JsonRpcId) : undefined, method: message.method, params: (params ?? {}) as Record<string, unknown> };
}
