// An upstream MCP server written on raw node:http, for answers no SDK server would send: it speaks enough
// of Streamable HTTP (stateless) for a real client to connect — initialize, notifications, tools/list —
// and then answers each tools/call with whatever the test chose: a huge body, malformed JSON, a result of
// the wrong shape, a NUL in text, JSON nested deeper than any parser should follow, or no answer at all.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How to answer one tools/call: a raw body (with a status and headers), a valid result, or nothing ever. */
export type HostileAnswer =
  | { kind: 'raw'; status?: number; contentType?: string; body: string | Buffer }
  | { kind: 'result'; result: unknown }
  /** A body of `bytes` bytes, streamed in 64 KiB chunks without a Content-Length. */
  | { kind: 'stream'; bytes: number }
  | { kind: 'never' };

export type HostileUpstream = {
  url: string;
  /** Answers tools/call; the test sets it before each call. */
  answer: (request: { id: unknown; name: string; arguments: unknown }) => HostileAnswer;
  /** Tools listed (for the catalog Gatehouse pins). */
  tools: Record<string, unknown>[];
  /** JSON-RPC methods received, in order. */
  methods: string[];
  stop(): Promise<void>;
};

/** The JSON-RPC response text for `result` to request `id`. */
export function jsonRpcResult(id: unknown, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

/** `depth` nested arrays around a value: `[[[...1...]]]`, built without recursion. */
export function deeplyNested(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

export async function startHostileUpstream(tools: Record<string, unknown>[]): Promise<HostileUpstream> {
  const hanging = new Set<ServerResponse>();
  const state: HostileUpstream = {
    url: '',
    tools,
    methods: [],
    answer: () => ({ kind: 'result', result: { content: [{ type: 'text', text: 'ok' }] } }),
    stop: async () => {},
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A client that stops reading (as Gatehouse must, past its size limit) ends the stream under our writes.
    res.on('error', () => {});
    if (req.method !== 'POST') {
      // No standalone SSE stream and no sessions (MCP 2025-11-25, Transports › Listening for messages: 405 is allowed).
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let message: { id?: unknown; method?: string; params?: Record<string, any> };
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    state.methods.push(message.method ?? '(response)');
    const reply = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (message.id === undefined || message.method === undefined) {
      res.writeHead(202).end();
      return;
    }
    switch (message.method) {
      case 'initialize':
        reply(
          jsonRpcResult(message.id, {
            protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'hostile-upstream', version: '1.0.0' },
          }),
        );
        return;
      case 'ping':
        reply(jsonRpcResult(message.id, {}));
        return;
      case 'tools/list':
        reply(jsonRpcResult(message.id, { tools: state.tools }));
        return;
      case 'tools/call':
        break;
      default:
        reply(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
        return;
    }
    const answer = state.answer({ id: message.id, name: String(message.params?.name), arguments: message.params?.arguments });
    switch (answer.kind) {
      case 'never':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'result':
        reply(jsonRpcResult(message.id, answer.result));
        return;
      case 'raw':
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body);
        return;
      case 'stream': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = answer.bytes;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            if (!res.write(piece)) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end();
        };
        pump();
        return;
      }
    }
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.stop = async () => {
    for (const res of hanging) res.destroy();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
