// The upstreams of scenarios G, H and K: MCP servers built on the official SDK with one read-only echo tool,
// answering JSON, each in its own process so that it does not share the load generator's event loop.
//
// - `sessions` (G, H, J): the SDK's Streamable HTTP server as it runs by default, with sessions (MCP
//   2025-11-25, Transports › Session Management): a server and a transport per session, opened by
//   `initialize` and kept. Gatehouse keeps one client per connector per process (lib/connectors/client-pool.ts),
//   so all of its calls go through one session.
// - `stateless` (K): the SDK's stateless mode, which builds a new server and transport for every request.
//   That costs the upstream about four times the CPU of a call in a session (0.6 against 0.15 ms here), and
//   on a machine whose two cores the upstream shares with Gatehouse, that CPU is taken from Gatehouse's
//   event loop: K shows it, beside G, in the same run (docs/performance.md).
//
// G and J call a `sessions` upstream through Gatehouse as the connector `bench`; H sends the very same
// tools/call straight to another `sessions` upstream, in a session of its own, so that the gateway's own
// cost shows beside it; K calls `stateless` through Gatehouse as the connector `bench-stateless`.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export type UpstreamMode = 'sessions' | 'stateless';
export type BenchUpstream = { url: string; pid: number; stop(): Promise<void> };

/** Sessions one upstream keeps open at most: Gatehouse opens one per process, the benchmark one for H. */
const MAX_SESSIONS = 64;

/** Starts an upstream in a child process and resolves with its /mcp URL. */
export async function startBenchUpstream(mode: UpstreamMode): Promise<BenchUpstream> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bench upstream exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Opens a session with a `sessions` upstream, as a client does before its first call (initialize, then
 * notifications/initialized), and returns its id: H's requests carry it.
 */
export async function openBenchSession(url: string, protocolVersion: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'gatehouse-bench', version: '1' } } };
  const opened = await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) });
  const session = opened.headers.get('mcp-session-id');
  await opened.text();
  if (!opened.ok || !session) throw new Error(`bench: the upstream did not open a session (HTTP ${opened.status})`);
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion };
  const initialized = await fetch(url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await initialized.text();
  if (!initialized.ok) throw new Error(`bench: the upstream refused notifications/initialized (HTTP ${initialized.status})`);
  return session;
}

async function serve(mode: UpstreamMode): Promise<void> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const { z } = await import('zod');
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;

  const echoServer = () => {
    const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
    server.registerTool('echo', { description: 'Answers its text.', inputSchema: { text: z.string().max(1000) }, annotations: { readOnlyHint: true } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    return server;
  };

  const stateless = async (req: IncomingMessage, res: ServerResponse) => {
    const server = echoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const sessions = new Map<string, Transport>();
  const withSessions = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = sessions.get(id);
      // An unknown session is answered 404, so that the client starts a new one (Session Management, 4).
      if (!transport) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end('A request without a session must be initialize.');
    if (sessions.size >= MAX_SESSIONS) return void res.writeHead(503).end('Too many sessions.');
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (opened) => void sessions.set(opened, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    releaseAnsweredStreams(transport);
    await echoServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    (mode === 'sessions' ? withSessions : stateless)(req, res).catch((error: unknown) => {
      console.error('bench upstream:', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.keepAliveTimeout = 60_000;
  http.listen(0, '127.0.0.1', () => console.log(`bench upstream listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
  process.once('SIGTERM', () => http.close(() => process.exit(0)));
}

/**
 * Works around a leak of the SDK's server transport (1.32.2, typescript-sdk issue #2559): with sessions and
 * JSON answers, a POST's entry in the session's stream map is never removed once its answer is sent, and
 * keeps the answer reachable. Over the 30,000-odd calls of a benchmark run the upstream's memory grew from
 * 120 to 345 MB, and its CPU per call with it (collections), so G slowed down the longer the run went, on
 * cores it shares with Gatehouse. The entry is removed as its answer is handed over, as the SDK's own fix
 * does; nothing else of the transport is touched. Private fields: checked, and the run refuses to start
 * when they are not there (a later SDK).
 */
export function releaseAnsweredStreams(transport: object): void {
  type Entry = { resolveJson?: (response: Response) => void };
  const web = (transport as { _webStandardTransport?: { _streamMapping?: unknown } })._webStandardTransport;
  const streams = web?._streamMapping;
  if (!(streams instanceof Map)) throw new Error("bench upstream: the SDK's server transport has changed; review the stream-map workaround in bench/upstream.ts");
  const map = streams as Map<string, Entry>;
  const set = map.set.bind(map);
  map.set = (id: string, entry: Entry) => {
    const resolve = entry.resolveJson;
    if (resolve) {
      entry.resolveJson = (response) => {
        map.delete(id);
        resolve(response);
      };
    }
    return set(id, entry);
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}

if (process.argv[2] === 'serve') void serve(process.argv[3] === 'stateless' ? 'stateless' : 'sessions');
