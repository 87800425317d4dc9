// Real upstream MCP servers for connector tests, built with the official SDK's server classes and started
// on 127.0.0.1 by the test: stateful (Mcp-Session-Id) or stateless, with a catalog the test can change
// between requests (a tool that rewrites its description), paged tools/list, an optional header credential,
// and a record of every request's headers (to prove what Gatehouse sends, and what it never sends).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** A tool as the upstream lists it (any shape: tests send broken ones too), with what a call answers. */
export type UpstreamTool = Record<string, unknown> & { name?: unknown; call?: (args: Record<string, unknown>) => unknown };

export type UpstreamOptions = {
  stateful: boolean;
  tools: UpstreamTool[];
  /** Tools per tools/list page (cursor paging); all on one page when absent. */
  pageSize?: number;
  /** A header the upstream requires, with its value: other requests get 401. */
  requireHeader?: { name: string; value: string };
};

export type RunningUpstream = {
  url: string;
  /** The catalog, changeable by the test between requests. */
  tools: UpstreamTool[];
  /** The headers of every HTTP request received, lower-cased names. */
  requests: IncomingMessage['headers'][];
  stop(): Promise<void>;
};

export async function startUpstream(options: UpstreamOptions): Promise<RunningUpstream> {
  const state: RunningUpstream = { url: '', tools: options.tools, requests: [], stop: async () => {} };
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  function mcpServer(): Server {
    const server = new Server({ name: 'test-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const listed = state.tools.map(({ call: _call, ...definition }) => definition);
      if (!options.pageSize) return { tools: listed } as never;
      const start = Number(request.params?.cursor ?? '0');
      const next = start + options.pageSize;
      return { tools: listed.slice(start, next), ...(next < listed.length ? { nextCursor: String(next) } : {}) } as never;
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = state.tools.find((candidate) => candidate.name === request.params.name);
      if (!tool?.call) return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
      return (await tool.call(request.params.arguments ?? {})) as never;
    });
    return server;
  }

  const http: HttpServer = createServer(async (req, res) => {
    state.requests.push({ ...req.headers });
    const required = options.requireHeader;
    if (required && req.headers[required.name.toLowerCase()] !== required.value) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    try {
      if (!options.stateful) {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        const server = mcpServer();
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (typeof sessionId === 'string' && !transport) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await mcpServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.stop = async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => {});
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}

/** A plain tool definition for tests: an object input schema, optional annotations. */
export function tool(name: string, description: string, extra: Partial<UpstreamTool> = {}): UpstreamTool {
  return { name, description, inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, ...extra };
}
