// The benchmark upstream's workaround for the SDK server transport's leak (bench/upstream.ts
// releaseAnsweredStreams): with sessions and JSON answers, each answered POST stayed in the session's
// stream map. Run against the SDK's real transport, over HTTP, with and without the workaround, so that a
// later SDK that fixes the leak (or renames the field) shows here.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { releaseAnsweredStreams } from '../../bench/upstream';

const CALLS = 25;
let server: Server | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** One session's transport behind an HTTP server; the calls, then the size of its stream map. */
async function streamsLeftAfterCalls(workaround: boolean): Promise<number> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
  if (workaround) releaseAnsweredStreams(transport);
  const mcp = new McpServer({ name: 'echo', version: '1.0.0' });
  mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  await mcp.connect(transport);
  server = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = async (message: object) => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
    const text = await response.text();
    expect(response.ok, text).toBe(true);
    return { response, text };
  };
  const opened = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  headers['mcp-session-id'] = opened.response.headers.get('mcp-session-id')!;
  headers['mcp-protocol-version'] = '2025-11-25';
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let id = 1; id <= CALLS; id++) {
    const { text } = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` } } });
    expect(JSON.parse(text).result.content[0].text).toBe(`call ${id}`);
  }
  const streams = (transport as unknown as { _webStandardTransport: { _streamMapping: Map<string, unknown> } })._webStandardTransport._streamMapping;
  return streams.size;
}

describe('the benchmark upstream', () => {
  it('keeps no answered call in its session once the workaround is in place, and answers every call', async () => {
    expect(await streamsLeftAfterCalls(true)).toBe(0);
  });

  it('needs it: without it the SDK keeps one entry per answered POST (remove the workaround when this fails)', async () => {
    // initialize and every tools/call; the notification has no stream.
    expect(await streamsLeftAfterCalls(false)).toBe(CALLS + 1);
  });
});
