// Real upstream MCP servers for connector tests, built with the official SDK's server classes and started
// on 127.0.0.1 by the test: stateful (Mcp-Session-Id) or stateless, answering in JSON or as an SSE stream,
// with a catalog the test can change between requests (a tool that rewrites its description), paged
// tools/list, an optional header credential or a bearer token it verifies (at a real authorization server:
// tests/helpers/token-server.ts), tools that send requests back to the client while they run
// (sampling, elicitation), a fixed port to be restarted on, and a record of every request (its headers,
// to prove what Gatehouse sends and what it never sends, and the JSON-RPC methods it carried).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, ResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';

/** What a tool's `call` may do while it runs: send a request back to the client on the call's own stream. */
export type ToolCallContext = {
  /**
   * Sends `method` to the client as a request related to this call, on the call's own SSE stream (MCP
   * 2025-11-25, Transports › Sending Messages to the Server: the server may send requests before its
   * response), and resolves with the result or rejects with the client's error (after `timeoutMs`, 5 s by
   * default, with a timeout: a client that never answers must not hold the test for a minute).
   */
  sendRequest(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The SDK's per-request context (session id, abort signal). */
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
};

/** A tool as the upstream lists it (any shape: tests send broken ones too), with what a call answers. */
export type UpstreamTool = Record<string, unknown> & { name?: unknown; call?: (args: Record<string, unknown>, context: ToolCallContext) => unknown };

export type UpstreamOptions = {
  stateful: boolean;
  tools: UpstreamTool[];
  /** Tools per tools/list page (cursor paging); all on one page when absent. */
  pageSize?: number;
  /** A header the upstream requires, with its value: other requests get 401. */
  requireHeader?: { name: string; value: string };
  /** Requires `Authorization: Bearer <token>` with a token this accepts: other requests get 401 (RFC 6750 §3). */
  requireBearer?: (token: string) => Promise<boolean>;
  /** Answer each POST with one JSON body (the default) or, when false, as an SSE stream (needed for requests back to the client). */
  enableJsonResponse?: boolean;
  /** Listen on this port (0 or absent: a free one). */
  port?: number;
};

/** One HTTP request the upstream received. */
export type RecordedRequest = {
  httpMethod: string;
  headers: IncomingMessage['headers'];
  /** The JSON-RPC methods the body carried ("(response)" for a client's answer to a request of ours). */
  rpcMethods: string[];
  /** For tools/call, the tool named. */
  toolNames: string[];
  body: string;
  /** Answered 401: the credential was missing or refused. */
  refused: boolean;
};

export type RunningUpstream = {
  url: string;
  port: number;
  /** The catalog, changeable by the test between requests. */
  tools: UpstreamTool[];
  /** The headers of every HTTP request received, lower-cased names. */
  requests: IncomingMessage['headers'][];
  /** Every HTTP request received, with what it carried. */
  log: RecordedRequest[];
  /** The answers the client gave to requests the upstream sent it (sampling, elicitation), or the errors. */
  clientAnswers: unknown[];
  /** tools/call requests received for the tool named (or for any tool). */
  calls(toolName?: string): RecordedRequest[];
  /** Stops listening and forgets every session. */
  stop(): Promise<void>;
  /** After stop(): listens again on the same port, with no session of before (old session ids get 404), keeping the log. */
  restart(): Promise<void>;
};

const BODY_LIMIT = 8 * 1024 * 1024;

export async function startUpstream(options: UpstreamOptions): Promise<RunningUpstream> {
  const enableJsonResponse = options.enableJsonResponse ?? true;
  let sessions = new Map<string, StreamableHTTPServerTransport>();
  const state: RunningUpstream = {
    url: '',
    port: 0,
    tools: options.tools,
    requests: [],
    log: [],
    clientAnswers: [],
    calls: (toolName) => state.log.filter((entry) => entry.rpcMethods.includes('tools/call') && (toolName === undefined || entry.toolNames.includes(toolName))),
    stop: async () => {},
    restart: async () => {},
  };

  function mcpServer(): Server {
    const server = new Server({ name: 'test-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const listed = state.tools.map(({ call: _call, ...definition }) => definition);
      if (!options.pageSize) return { tools: listed } as never;
      const start = Number(request.params?.cursor ?? '0');
      const next = start + options.pageSize;
      return { tools: listed.slice(start, next), ...(next < listed.length ? { nextCursor: String(next) } : {}) } as never;
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = state.tools.find((candidate) => candidate.name === request.params.name);
      if (!tool?.call) return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
      const context: ToolCallContext = {
        extra,
        async sendRequest(method, params, timeoutMs = 5_000) {
          try {
            const answer = await extra.sendRequest({ method, params } as never, ResultSchema, { timeout: timeoutMs });
            state.clientAnswers.push(answer);
            return answer as Record<string, unknown>;
          } catch (error) {
            state.clientAnswers.push(error);
            throw error;
          }
        },
      };
      return (await tool.call(request.params.arguments ?? {}, context)) as never;
    });
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readBody(req) : '';
    const entry: RecordedRequest = { httpMethod: req.method ?? '', headers: { ...req.headers }, rpcMethods: [], toolNames: [], body, refused: false };
    let parsed: unknown;
    if (body) {
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
    }
    for (const message of Array.isArray(parsed) ? parsed : parsed ? [parsed] : []) {
      const method = (message as { method?: unknown })?.method;
      entry.rpcMethods.push(typeof method === 'string' ? method : '(response)');
      const name = (message as { params?: { name?: unknown } })?.params?.name;
      if (method === 'tools/call' && typeof name === 'string') entry.toolNames.push(name);
    }
    state.log.push(entry);
    state.requests.push(entry.headers);

    const required = options.requireHeader;
    if (required && req.headers[required.name.toLowerCase()] !== required.value) {
      entry.refused = true;
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (options.requireBearer) {
      const bearer = /^Bearer ([^\s]+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !(await options.requireBearer(bearer))) {
        entry.refused = true;
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
    }
    if (!options.stateful) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
      const server = mcpServer();
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, parsed);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && !transport) {
      // MCP 2025-11-25, Transports › Session Management: an ended session's id is answered 404.
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!transport) {
      const ownSessions = sessions;
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        onsessioninitialized: (id) => {
          ownSessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) ownSessions.delete(created.sessionId);
      };
      await mcpServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, parsed);
  }

  let http: HttpServer | null = null;
  async function listen(port: number): Promise<void> {
    const created = createServer((req, res) => {
      handle(req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => {
        created.off('error', reject);
        resolve();
      });
    });
    http = created;
    state.port = (created.address() as AddressInfo).port;
    state.url = `http://127.0.0.1:${state.port}/mcp`;
  }

  await listen(options.port ?? 0);
  state.stop = async () => {
    const closing = http;
    if (!closing) return;
    http = null;
    const ended = sessions;
    sessions = new Map();
    for (const transport of ended.values()) await transport.close().catch(() => {});
    closing.closeAllConnections();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  state.restart = async () => {
    await state.stop();
    await listen(state.port);
  };
  return state;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) req.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A plain tool definition for tests: an object input schema, optional annotations. */
export function tool(name: string, description: string, extra: Partial<UpstreamTool> = {}): UpstreamTool {
  return { name, description, inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, ...extra };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers the arguments it got as JSON text (so a test sees exactly what reached the upstream). */
export function echoTool(name: string, extra: Partial<UpstreamTool> = {}): UpstreamTool {
  return tool(name, 'Answers the arguments it was given.', { call: (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }), ...extra });
}

/** Answers after `ms` milliseconds (or when the call is cancelled). */
export function slowTool(name: string, ms: number): UpstreamTool {
  return tool(name, `Answers after ${ms} ms.`, {
    call: async (_args: Record<string, unknown>, context: ToolCallContext) => {
      await Promise.race([sleep(ms), new Promise((resolve) => context.extra.signal.addEventListener('abort', resolve))]);
      return { content: [{ type: 'text', text: 'finally' }] };
    },
  });
}

/** A result the tool itself marks as an error (CallToolResult.isError), which is not a protocol error. */
export function errorResultTool(name: string, text: string): UpstreamTool {
  return tool(name, 'Always fails, in band.', { call: () => ({ content: [{ type: 'text', text }], isError: true }) });
}

/** Throws: the SDK server answers a JSON-RPC error carrying the message. */
export function throwingTool(name: string, message: string): UpstreamTool {
  return tool(name, 'Always throws.', {
    call: () => {
      throw new Error(message);
    },
  });
}

/** Answers one text item of `bytes` characters. */
export function oversizedTool(name: string, bytes: number): UpstreamTool {
  return tool(name, `Answers ${bytes} bytes.`, { call: () => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }) });
}

/** A 1×1 PNG, base64. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** Answers an image item. */
export function imageTool(name: string): UpstreamTool {
  return tool(name, 'Answers a picture.', { annotations: { readOnlyHint: true }, call: () => ({ content: [{ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }] }) });
}

/** Declares an output schema and answers structured content that meets it, with its text form. */
export function structuredTool(name: string): UpstreamTool {
  return tool(name, 'Adds two numbers.', {
    title: 'Add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true, idempotentHint: true },
    call: (args: Record<string, unknown>) => {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
    },
  });
}

/**
 * Sends `method` back to the client while it runs (sampling/createMessage, elicitation/create), and answers
 * in text what the client said: "the client answered <result JSON>" or "the client refused: <code> <message>".
 * Needs a stateful upstream answering as an SSE stream, so that the request and the client's answer share the call.
 */
export function askBackTool(name: string, method: string, params: Record<string, unknown>): UpstreamTool {
  return tool(name, `Asks the client (${method}) while it runs.`, {
    call: async (_args: Record<string, unknown>, context: ToolCallContext) => {
      try {
        const answer = await context.sendRequest(method, params);
        return { content: [{ type: 'text', text: `the client answered ${JSON.stringify(answer)}` }] };
      } catch (error) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        return { content: [{ type: 'text', text: `the client refused: ${String(code)} ${String(message)}` }] };
      }
    },
  });
}
