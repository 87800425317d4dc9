// An upstream MCP server that knows who is acting: it verifies the identity assertion Gatehouse sends with
// every forwarded call (docs/connectors.md, Who is acting, shows this file) and answers with the person and
// the organization. Built on the official SDK and `jose`, as an organization's own server would be.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/** Starts the server on 127.0.0.1; `gatehouse` is Gatehouse's PUBLIC_URL. */
export async function startIdentityUpstream(gatehouse: string) {
  // Gatehouse's signing keys, fetched once and again when a token names a key not seen yet (a rotation),
  // at most every 5 s (jose waits 30 s between fetches by default: refusals for that long after a rotation).
  const keys = createRemoteJWKSet(new URL('/oauth/jwks', gatehouse), { cooldownDuration: 5_000 });
  let audience = '';

  /** The person and organization a call is made for, or why the call is refused. */
  async function whoIsActing(assertion: string | undefined) {
    if (!assertion) throw new Error('no identity assertion');
    const { payload, protectedHeader } = await jwtVerify(assertion, keys, {
      issuer: gatehouse,
      audience, // this server's own URL, as the connector was added with
      typ: 'gatehouse-identity+jwt', // not an ID token, which the same keys sign
      algorithms: ['ES256', 'RS256'],
      maxTokenAge: '60s',
    });
    // sub is the person; org_id, role, client_id, grant_id and scope say where, as what, through what.
    return { ...payload, kid: protectedHeader.kid } as { sub: string; email: string; org_id: string; org_name: string; role: string; scope: string; kid?: string };
  }

  function mcpServer(): McpServer {
    const server = new McpServer({ name: 'identity-upstream', version: '1.0.0' });
    server.registerTool('who_is_acting', { description: 'Says on whose behalf it was called.', annotations: { readOnlyHint: true } }, async (extra) => {
      const header = extra.requestInfo?.headers['gatehouse-identity'];
      try {
        const who = await whoIsActing(typeof header === 'string' ? header : undefined);
        return { content: [{ type: 'text', text: `${who.email} in ${who.org_name}` }], structuredContent: who };
      } catch (error) {
        return { content: [{ type: 'text', text: `refused: ${(error as Error).message}` }], isError: true };
      }
    });
    return server;
  }

  const http: HttpServer = createServer(async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  audience = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url: audience,
    whoIsActing,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
