// POST /mcp: stateless JSON-RPC 2.0 over Streamable HTTP (docs/protocol.md §6). Each request pays the whole way:
// method → Origin → token and grant → rate limit → body → protocol version → dispatch. The first
// failure answers. Nothing is kept between requests: no session id, no server stream.
// Requests refused for want of a valid access token are limited per client address: past
// MCP_UNAUTHENTICATED_RATE_LIMIT a minute, 429 instead of the 401 challenge. Checked on refusal, so a
// caller with a valid token is never held back by what others at its address sent.
import { recordCall } from '@/lib/audit/call-log';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '@/lib/db/errors';
import { env } from '@/lib/env';
import { isRequestAborted, readLimitedBody } from '@/lib/http/body';
import { clientAddress } from '@/lib/http/client-address';
import { addressKey, FixedWindowLimiter } from '@/lib/rate-limit/fixed-window';
import { mcpRequestsPerWindow, takeFromGrantBudget } from '@/lib/rate-limit/grant-limiter';
import { outcomeOfError, type CallOutcome } from './call-outcome';
import { resolveCaller, type Caller } from './caller';
import { parseEnvelope, MAX_BODY_BYTES, type JsonRpcMessage } from './envelope';
import { dispatch } from './dispatch';
import { JSON_RPC, McpError, type CallSubject, type JsonRpcId } from './errors';
import { calledToolHint, checkVersionRules, negotiateVersion } from './negotiation';
import { corsHeaders, isAllowedOrigin, jsonRpcError, jsonRpcResult, preflight } from './respond';
import type { VersionRules } from './versions';
import { processSingleton } from '@/lib/server/process-singleton';

type CallContext = {
  started: number;
  caller: Caller | null;
  message: JsonRpcMessage | null;
  rules: VersionRules | null;
  traceId: string | null;
};

export async function handleMcpRequest(request: Request): Promise<Response> {
  const context: CallContext = { started: performance.now(), caller: null, message: null, rules: null, traceId: null };
  const origin = request.headers.get('origin');
  let response: Response;
  let outcome: CallOutcome = 'ok';
  let toolName: string | null = null;
  let connector: string | null = null;
  let upstreamLatencyMs: number | null = null;
  let subject: CallSubject | null = null;
  try {
    if (request.method === 'OPTIONS') return preflight(request);
    // 1. Method: POST only; no server stream, no session to delete.
    if (request.method !== 'POST') throw new McpError(JSON_RPC.INVALID_REQUEST, 'Method not allowed: use POST', 405, { headers: { Allow: 'POST' } });
    // 2. Origin (DNS-rebinding protection): browsers send it; other clients usually do not.
    if (origin !== null && !isAllowedOrigin(origin)) throw new McpError(JSON_RPC.INVALID_REQUEST, `Origin not allowed: ${origin}`, 403);
    // 3–4. Token, grant, person, membership, role, plan, tool restrictions — read fresh, in one statement,
    // with the connector tool a tools/call names: in its small body, read first, or else under 2026-07-28
    // in its Mcp-Name header (checked against the body in step 7: the body's name decides).
    const early = await readSmallBody(request);
    const resolved = await resolveCaller(request.headers.get('authorization'), early ? early.toolName : calledToolHint(request.headers));
    context.caller = resolved.caller;
    // 5. Rate limit, per grant.
    const budget = await takeFromGrantBudget(context.caller.grantId);
    if (!budget.allowed) {
      throw new McpError(JSON_RPC.RATE_LIMITED, `Rate limit exceeded: at most ${mcpRequestsPerWindow()} requests per minute per connection. Retry in ${budget.retryAfterSeconds} s.`, 429, {
        headers: { 'Retry-After': String(budget.retryAfterSeconds) },
      });
    }
    // 6. Body (unless read before step 3); its faults answer only now, after the token's.
    context.message = early ? early.message() : parseEnvelope(await readBody(request));
    // 7. Protocol version, and the 2026-07-28 header and _meta rules.
    context.rules = negotiateVersion(request.headers.get('mcp-protocol-version'));
    context.traceId = checkVersionRules(context.rules, request.headers, context.message);
    // 8. Notifications are accepted without an answer.
    if (context.message.id === undefined) {
      outcome = 'notification';
      response = new Response(null, { status: 202 });
    } else {
      const dispatched = await dispatch(context.caller, context.rules, context.message.method, context.message.params, request.signal, resolved.named);
      outcome = dispatched.outcome;
      toolName = dispatched.toolName ?? null;
      connector = dispatched.connector ?? null;
      upstreamLatencyMs = dispatched.upstreamLatencyMs ?? null;
      response = jsonRpcResult(request, context.message.id, dispatched.result, dispatched.headers);
    }
  } catch (error) {
    let failure = error instanceof McpError ? error : internalError(error);
    if (failure.httpStatus === 401 && !failure.options.subject) failure = limitUnauthenticated(request) ?? failure;
    outcome = isRequestAborted(error) ? 'aborted' : outcomeOfError(failure);
    response = jsonRpcError(idOf(context.message), failure);
    subject = failure.options.subject ?? null;
  }
  finish(response, request, context);
  const who = context.caller ?? subject;
  recordCall({
    at: new Date(),
    personId: who?.personId ?? null,
    orgId: who?.orgId ?? null,
    clientId: who?.clientId ?? null,
    grantId: who?.grantId ?? null,
    method: context.message?.method.slice(0, 256) ?? null,
    toolName,
    outcome,
    httpStatus: response.status,
    latencyMs: Math.round(performance.now() - context.started),
    protocolVersion: context.rules?.version ?? null,
    traceId: context.traceId,
    connector,
    upstreamLatencyMs,
  });
  return response;
}

/**
 * A body that announces at most SMALL_BODY_BYTES, of a request that carries an Authorization header, is
 * read before the token is checked, so that the connector tool its tools/call names is read in the
 * caller's own statement: one database round trip instead of two. Nothing database-related waits on it
 * (the read comes before any statement), and what an unauthenticated request can make Gatehouse hold is
 * bounded as its headers already are: Node's default limit on a request's headers is the same 16 KiB.
 * A request without an Authorization header gets its 401 without its body read; a larger body, or one
 * without a Content-Length, is read after the token and the rate limit, as before.
 */
const SMALL_BODY_BYTES = 16 * 1024;

type SmallBody = { message: () => JsonRpcMessage; toolName: string | null };

async function readSmallBody(request: Request): Promise<SmallBody | null> {
  const declared = request.headers.get('content-length');
  if (!request.headers.has('authorization') || declared === null || !/^\d{1,5}$/.test(declared) || Number(declared) > SMALL_BODY_BYTES) return null;
  let message: JsonRpcMessage;
  try {
    message = parseEnvelope(await readBody(request));
  } catch (error) {
    // A body that is malformed, or that stopped arriving, is answered in step 6, after the token's checks,
    // as any other body is (an aborted one is then logged with its caller).
    return {
      message: () => {
        throw error;
      },
      toolName: null,
    };
  }
  return { message: () => message, toolName: calledToolName(message) };
}

/** The tool a tools/call runs: the one it names, or the one it names execute_tool to run. */
function calledToolName(message: JsonRpcMessage): string | null {
  if (message.method !== 'tools/call') return null;
  const { name, arguments: args } = message.params;
  if (name === 'execute_tool' && typeof args === 'object' && args !== null) {
    const inner = (args as Record<string, unknown>).name;
    return typeof inner === 'string' ? inner : null;
  }
  return typeof name === 'string' ? name : null;
}

/** Reads at most 1 MiB; a larger body is refused without reading the rest. */
async function readBody(request: Request): Promise<string> {
  const text = await readLimitedBody(request, MAX_BODY_BYTES);
  if (text === null) throw new McpError(JSON_RPC.INVALID_REQUEST, 'Request body too large', 413);
  return text;
}

function idOf(message: JsonRpcMessage | null): JsonRpcId {
  return message?.id ?? null;
}

function finish(response: Response, request: Request, context: CallContext): void {
  for (const [name, value] of Object.entries(corsHeaders(request.headers.get('origin')))) response.headers.set(name, value);
  if (context.rules) response.headers.set('MCP-Protocol-Version', context.rules.version);
  response.headers.set('Cache-Control', 'no-store');
}

/** Spends one of the address's refusals; the 429 that replaces the 401 once they are spent. */
function limitUnauthenticated(request: Request): McpError | null {
  const limit = env().mcpUnauthenticatedRateLimit;
  const limiter = processSingleton('unauthenticatedMcpLimiter', () => new FixedWindowLimiter(limit, 60_000));
  const decision = limiter.take(addressKey(clientAddress(request.headers)));
  if (decision.allowed) return null;
  return new McpError(JSON_RPC.RATE_LIMITED, `Too many requests without a valid access token from this address: at most ${limit} per minute. Retry in ${decision.retryAfterSeconds} s.`, 429, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
  });
}

function internalError(error: unknown): McpError {
  // The client went away mid-body: nobody reads this answer, and nothing failed on our side.
  if (isRequestAborted(error)) return new McpError(JSON_RPC.INVALID_REQUEST, 'The request body did not arrive', 400);
  if (isDatabaseUnavailable(error)) {
    console.error('mcp: database unreachable', (error as Error).message);
    return new McpError(JSON_RPC.INTERNAL_ERROR, 'Gatehouse cannot reach its database right now. Try again shortly.', 503, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
  console.error('mcp: request failed', error);
  return new McpError(JSON_RPC.INTERNAL_ERROR, 'Internal error', 500);
}
