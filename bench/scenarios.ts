// What the benchmark measures (issue: performance): each scenario makes the next request to send and
// says which status is the intended answer. Tokens rotate over every connection, one grant each.
import type { Connection } from './tokens';

/** One request to send; `answered` hears its answer (the refresh chains need the new token). */
export type BenchRequest = {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  answered?: (status: number, body: string) => void;
};

export type Scenario = {
  key: string;
  label: string;
  expectedStatus: number;
  /**
   * Whether an answer with that status is the intended one, where the status alone does not say (a tool's
   * failure is a 200 with isError): an answer that fails the check counts as an error.
   */
  answers?: (body: string) => boolean;
  /**
   * The same request every time (no per-request work in the load generator), or the next one to send;
   * null when none can be sent now (every refresh chain in flight: the offered rate exceeds what E serves).
   */
  request: BenchRequest | (() => BenchRequest | null);
  /** Where to send it, when not to Gatehouse (H: straight to the upstream). */
  baseUrl?: string;
  /** The upstream process the request ends at (G, H, J, K): its CPU per request is read beside the server's. */
  upstreamPid?: number;
};

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** The revision most clients speak today, and the newest, whose headers name the method and the tool. */
type Revision = '2025-11-25' | '2026-07-28';

function rpc(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });
}

/**
 * A request's headers and body under a revision. 2026-07-28 carries the version and the client's
 * capabilities in params._meta, and the method and tool name in the Mcp-Method and Mcp-Name headers.
 */
function mcpMessage(revision: Revision, method: string, params?: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  if (revision === '2025-11-25') return { headers: MCP_HEADERS, body: rpc(method, params) };
  const meta = { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientCapabilities': {} };
  const headers: Record<string, string> = { ...MCP_HEADERS, 'mcp-protocol-version': revision, 'mcp-method': method };
  if (typeof params?.name === 'string') headers['mcp-name'] = params.name;
  return { headers, body: rpc(method, { ...params, _meta: meta }) };
}

/** Each request takes the next connection's access token, round robin: no hot row. */
function withRotatingTokens(connections: Connection[], message: { headers: Record<string, string>; body: string }): () => BenchRequest {
  let next = 0;
  return () => ({
    method: 'POST',
    path: '/mcp',
    headers: { ...message.headers, authorization: `Bearer ${connections[next++ % connections.length]!.accessToken}` },
    body: message.body,
  });
}

export function whoamiScenario(connections: Connection[]): Scenario {
  return {
    key: 'B',
    label: 'POST /mcp tools/call whoami',
    expectedStatus: 200,
    answers: isToolAnswer,
    request: withRotatingTokens(connections, mcpMessage('2025-11-25', 'tools/call', { name: 'whoami', arguments: {} })),
  };
}

/** The connectors of G and K (bench/upstream.ts), as Gatehouse exposes them; the upstreams name the tool `echo`. */
export const BENCH_CONNECTOR = 'bench';
export const STATELESS_CONNECTOR = 'bench-stateless';
const ECHO_ARGUMENTS = { text: 'bench' };

/** A tool's result, not its failure in band. */
export function isToolAnswer(body: string): boolean {
  try {
    const { result } = JSON.parse(body) as { result?: { isError?: boolean } };
    return result !== undefined && result.isError !== true;
  } catch {
    return false;
  }
}

/** The echo tool's own answer: its text back, not an error in band (a circuit open, an upstream failure). */
export function isEchoAnswer(body: string): boolean {
  try {
    const { result } = JSON.parse(body) as { result?: { isError?: boolean; content?: { type?: string; text?: string }[] } };
    const first = result?.content?.[0];
    return result?.isError !== true && first?.type === 'text' && first.text === ECHO_ARGUMENTS.text;
  } catch {
    return false;
  }
}

/** The three upstreams of the connector scenarios, as bench/run.ts started them (bench/upstream.ts). */
export type BenchUpstreams = {
  /** The SDK's server with sessions, called through Gatehouse: G, J. */
  sessions: { url: string; pid: number };
  /**
   * The same server in a process of its own, called straight: H, in the session `session`. When H shared
   * G's upstream, its burst (about ten times G's rate) left that process spending more CPU per call for a
   * while after, and whichever of G or J came next paid for it (0.5 instead of 0.3 ms a call).
   */
  direct: { url: string; pid: number; session: string };
  /** The SDK's stateless server, a new server per request: K. */
  stateless: { url: string; pid: number };
};

/**
 * G: a connector tool through Gatehouse — the same authorization as B, then the call forwarded upstream.
 * H: the very same tools/call sent straight to the same upstream server (in a process of its own), in a
 * session, no Gatehouse: what the gateway adds is G − H.
 * I and J: B and G under 2026-07-28, whose Mcp-Name header lets /mcp read the connector tool with the
 * caller, in one statement (under 2025-11-25 the name is known only from the body, read after the token).
 * K: G to a stateless upstream, which spends two to four times the CPU per call: the same gateway, with an
 * upstream that takes more of the machine's two cores.
 */
export function connectorScenarios(connections: Connection[], upstreams: BenchUpstreams): Scenario[] {
  const direct = new URL(upstreams.direct.url);
  const echo = { name: `${BENCH_CONNECTOR}__echo`, arguments: ECHO_ARGUMENTS };
  const toSessions = { upstreamPid: upstreams.sessions.pid };
  return [
    {
      key: 'G',
      label: `POST /mcp tools/call ${BENCH_CONNECTOR}__echo (a connector tool)`,
      expectedStatus: 200,
      answers: isEchoAnswer,
      request: withRotatingTokens(connections, mcpMessage('2025-11-25', 'tools/call', echo)),
      ...toSessions,
    },
    {
      key: 'H',
      label: 'The same tools/call straight to the upstream',
      expectedStatus: 200,
      answers: isEchoAnswer,
      baseUrl: direct.origin,
      request: {
        method: 'POST',
        path: direct.pathname,
        headers: { ...MCP_HEADERS, 'mcp-session-id': upstreams.direct.session },
        body: rpc('tools/call', { name: 'echo', arguments: ECHO_ARGUMENTS }),
      },
      upstreamPid: upstreams.direct.pid,
    },
    {
      key: 'I',
      label: 'B under 2026-07-28',
      expectedStatus: 200,
      answers: isToolAnswer,
      request: withRotatingTokens(connections, mcpMessage('2026-07-28', 'tools/call', { name: 'whoami', arguments: {} })),
    },
    {
      key: 'J',
      label: 'G under 2026-07-28 (the tool read with the caller)',
      expectedStatus: 200,
      answers: isEchoAnswer,
      request: withRotatingTokens(connections, mcpMessage('2026-07-28', 'tools/call', echo)),
      ...toSessions,
    },
    {
      key: 'K',
      label: `G to a stateless upstream (${STATELESS_CONNECTOR}__echo: a new SDK server per request)`,
      expectedStatus: 200,
      answers: isEchoAnswer,
      request: withRotatingTokens(connections, mcpMessage('2025-11-25', 'tools/call', { name: `${STATELESS_CONNECTOR}__echo`, arguments: ECHO_ARGUMENTS })),
      upstreamPid: upstreams.stateless.pid,
    },
  ];
}

export const BASELINE: Scenario = { key: 'A', label: 'Baseline: GET /healthz (no database)', expectedStatus: 200, request: { method: 'GET', path: '/healthz' } };

export function scenarios(connections: Connection[]): Scenario[] {
  return [
    BASELINE,
    whoamiScenario(connections),
    { key: 'C', label: 'POST /mcp tools/list', expectedStatus: 200, request: withRotatingTokens(connections, mcpMessage('2025-11-25', 'tools/list')) },
    { key: 'D', label: 'POST /mcp without a token (401)', expectedStatus: 401, request: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: rpc('tools/list') } },
    refreshScenario(connections),
    {
      key: 'F',
      label: 'POST /oauth/register',
      expectedStatus: 201,
      request: {
        method: 'POST',
        path: '/oauth/register',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Bench registration', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
      },
    },
  ];
}

/**
 * E: every refresh rotates the token, and presenting a rotated one again is reuse, which revokes the
 * grant. So a client's chain is checked out while its refresh is in flight — never two at once — and
 * comes back with the new token. A chain whose answer is not the new pair (or never came) is retired:
 * whether it rotated is unknown, and guessing wrong would be reuse.
 */
function refreshScenario(connections: Connection[]): Scenario {
  const idle = connections.map((connection) => ({ clientId: connection.clientId, refreshToken: connection.refreshToken }));
  return {
    key: 'E',
    label: 'POST /oauth/token refresh (rotation)',
    expectedStatus: 200,
    request: () => {
      const chain = idle.shift();
      if (!chain) return null;
      return {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: chain.refreshToken, client_id: chain.clientId }).toString(),
        answered: (status, body) => {
          if (status !== 200) return;
          chain.refreshToken = (JSON.parse(body) as { refresh_token: string }).refresh_token;
          idle.push(chain);
        },
      };
    },
  };
}
