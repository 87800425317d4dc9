// The upstream of scenarios G and H: an MCP server built on the official SDK with one read-only echo tool,
// stateless and answering JSON (the cheapest way an SDK server answers), run in its own process so that it
// does not share the load generator's event loop. G calls it through Gatehouse as the connector `bench`;
// H sends the very same tools/call to it directly, so that the gateway's own cost shows beside it.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export type BenchUpstream = { url: string; pid: number; stop(): Promise<void> };

/** Starts the upstream in a child process and resolves with its /mcp URL. */
export async function startBenchUpstream(): Promise<BenchUpstream> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

async function serve(): Promise<void> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
    server.registerTool('echo', { description: 'Answers its text.', inputSchema: { text: z.string().max(1000) }, annotations: { readOnlyHint: true } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.keepAliveTimeout = 60_000;
  http.listen(0, '127.0.0.1', () => console.log(`bench upstream listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
  process.once('SIGTERM', () => http.close(() => process.exit(0)));
}

if (process.argv[2] === 'serve') void serve();
