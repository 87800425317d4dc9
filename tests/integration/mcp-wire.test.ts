// docs/protocol.md §6 on the wire: the order of checks and their exact answers, the JSON-RPC envelope, encodings and
// protocol versions.
import { connect as connectSocket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFrom } from '../helpers/from-address';
import { inspectDatabase } from '../helpers/inspect';
import { connect, register } from '../helpers/oauth';
import { postMcp, rpc, rpc2026 } from '../helpers/mcp';
import { DATABASES } from '../helpers/databases';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

const member = { email: 'member@acme.test', password: TEST_DEMO_PASSWORD };
/** Requests without a valid access token allowed per address per minute, for this file's server. */
const UNAUTHENTICATED_LIMIT = 20;

describe.each(DATABASES)('/mcp on the wire, %s database', (kind) => {
  let server: RunningServer;
  let token: string;
  beforeAll(async () => {
    server = await startServer({ database: kind, env: { MCP_UNAUTHENTICATED_RATE_LIMIT: String(UNAUTHENTICATED_LIMIT) } });
    const client = await register(server.url, { client_name: 'Wire', redirect_uris: ['https://wire.example/cb'] });
    token = (await connect(server.url, client, member)).tokens.access_token;
  });
  afterAll(async () => server?.stop());

  const challenge = () => `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource", scope="mcp:read mcp:write"`;

  describe('the order of checks', () => {
    it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and Allow: POST', async (method) => {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect((await response.json()).id).toBeNull();
      expect(response.headers.get('mcp-session-id')).toBeNull();
    });

    it('refuses a foreign Origin with 403 before looking at the token', async () => {
      const reply = await postMcp(server.url, null, rpc('ping'), { origin: 'https://evil.example' });
      expect(reply.status).toBe(403);
      expect(reply.body?.id).toBeNull();
    });

    it('accepts loopback and its own origin, with CORS that exposes the headers clients need', async () => {
      const reply = await postMcp(server.url, token, rpc('ping'), { origin: 'http://localhost:6274' });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
      expect(reply.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
      expect(reply.headers.get('access-control-expose-headers')).toMatch(/MCP-Protocol-Version/);
      const preflight = await fetch(`${server.url}/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, mcp-protocol-version' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    });

    it('answers a missing token with 401 and the discovery challenge', async () => {
      const reply = await postMcp(server.url, null, rpc('ping'));
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe(challenge());
      expect(reply.body?.id).toBeNull();
    });

    it('answers a bad token with 401 invalid_token', async () => {
      for (const bad of ['mcp_at_not-a-real-token', 'garbage']) {
        const reply = await postMcp(server.url, bad, rpc('ping'));
        expect(reply.status).toBe(401);
        expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(reply.headers.get('www-authenticate')).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
      }
    });

    it('reads a body before the token only when it has an Authorization header and a Content-Length of at most 16 KiB', async () => {
      /** Sends the head and `sent` of the body, then waits up to `ms` for an answer's status line. */
      const statusWithin = (headers: string, length: number, sent: string, ms: number, rest?: string) =>
        new Promise<number | null>((resolve, reject) => {
          const socket = connectSocket({ port: server.port, host: '127.0.0.1', localAddress: '127.0.0.31' }, () => {
            socket.write(`POST /mcp HTTP/1.1\r\nHost: localhost:${server.port}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${length}\r\n\r\n${sent}`);
            if (rest !== undefined) setTimeout(() => socket.write(rest), ms / 2);
          });
          let answer = '';
          socket.on('data', (chunk) => {
            answer += chunk;
            const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
            if (status) {
              socket.destroy();
              resolve(Number(status[1]));
            }
          });
          socket.on('error', reject);
          setTimeout(() => {
            socket.destroy();
            resolve(null);
          }, ms);
        });
      const message = JSON.stringify(rpc('ping'));
      // Without an Authorization header, or with a larger body, the token is checked first: 401 at once,
      // whatever the body does.
      expect(await statusWithin('', 1_000, '{', 2_000)).toBe(401);
      expect(await statusWithin('Authorization: Bearer mcp_at_not-a-real-token\r\n', 16 * 1024 + 1, '{', 2_000)).toBe(401);
      // A small body with a token is read first: no answer while it is still arriving, then the token's.
      expect(await statusWithin('Authorization: Bearer mcp_at_not-a-real-token\r\n', message.length, message.slice(0, 5), 600)).toBeNull();
      expect(await statusWithin('Authorization: Bearer mcp_at_not-a-real-token\r\n', message.length, message.slice(0, 5), 2_000, message.slice(5))).toBe(401);
      // Its faults still answer after the token's: a bad token with a broken body is a 401, not a 400.
      const broken = await fetchFrom('127.0.0.31')(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: 'Bearer mcp_at_not-a-real-token', 'content-type': 'application/json' },
        body: '{"jsonrpc":',
      });
      expect(broken.status).toBe(401);
      expect((await postMcp(server.url, token, '{"jsonrpc":')).status).toBe(400);
    });

    it('never reads the token from the URL', async () => {
      const response = await fetch(`${server.url}/mcp?access_token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rpc('ping')),
      });
      expect(response.status).toBe(401);
    });
  });

  describe('requests without a valid access token', () => {
    /** POST /mcp from a loopback address of the test's choosing, so that its budget is its own. */
    const postFrom = async (address: string, bearer: string | null) => {
      const response = await fetchFrom(address)(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify(rpc('ping')),
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
    };

    it(`answers up to ${UNAUTHENTICATED_LIMIT} a minute from one address with the 401 challenge, then 429 with Retry-After; a valid token from that address is unaffected`, async () => {
      for (let index = 0; index < UNAUTHENTICATED_LIMIT; index++) {
        const reply = await postFrom('127.0.0.21', index % 2 ? 'mcp_at_not-a-real-token' : null);
        expect(reply.status).toBe(401);
        if (index % 2) expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
        else expect(reply.headers.get('www-authenticate')).toBe(challenge());
      }
      for (const bearer of [null, 'mcp_at_not-a-real-token']) {
        const limited = await postFrom('127.0.0.21', bearer);
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        expect(limited.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32029 } });
      }
      expect((await postFrom('127.0.0.21', token)).status).toBe(200);
      const elsewhere = await postFrom('127.0.0.22', null);
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.headers.get('www-authenticate')).toBe(challenge());
    });

    it('takes a client that disconnects mid-body (on /mcp or an OAuth endpoint) for what it is, not a database outage, and answers normally after', async () => {
      const aborting = await register(server.url, { client_name: 'Aborting', redirect_uris: ['https://aborting.example/cb'] });
      const abortingToken = (await connect(server.url, aborting, member)).tokens.access_token;
      const abortMidBody = (path: string, headers: string, partialBody: string) =>
        new Promise<void>((resolve, reject) => {
          const socket = connectSocket(server.port, '127.0.0.1', () => {
            socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost:${server.port}\r\n${headers}Content-Length: 1000\r\n\r\n${partialBody}`);
            // Long enough for the token check to pass and the body read to begin, then gone.
            setTimeout(() => socket.destroy(), 300);
          });
          socket.on('close', () => resolve());
          socket.on('error', reject);
        });
      const before = server.output().length;
      await Promise.all([
        ...Array.from({ length: 16 }, () => abortMidBody('/mcp', `Authorization: Bearer ${abortingToken}\r\nContent-Type: application/json\r\nAccept: application/json\r\n`, '{"jsonrpc":"2.0",')),
        abortMidBody('/oauth/token', 'Content-Type: application/x-www-form-urlencoded\r\n', 'grant_type=refresh_token&'),
        abortMidBody('/oauth/register', 'Content-Type: application/json\r\n', '{"client_name":'),
        abortMidBody('/oauth/revoke', 'Content-Type: application/x-www-form-urlencoded\r\n', 'token='),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const logged = server.output().slice(before);
      expect(logged).not.toMatch(/database unreachable/i);
      expect(logged).not.toMatch(/request failed|oauth: .* failed/);
      // The call log records each for what it was: the client went away (outcome aborted), never unavailable.
      // The log is written in the background (every second, and when the server stops): read until all 16 are in.
      let outcomes: { outcome: string; n: number }[] = [];
      for (let attempt = 0; attempt < 10; attempt++) {
        ({ server, result: outcomes } = await inspectDatabase(server, (query) =>
          query<{ outcome: string; n: number }>(`SELECT outcome, count(*)::int AS n FROM mcp_calls WHERE client_id = $1 GROUP BY outcome ORDER BY outcome`, [aborting.client_id]),
        ));
        if (outcomes.reduce((sum, row) => sum + row.n, 0) >= 16) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(outcomes).toEqual([{ outcome: 'aborted', n: 16 }]);
      const after = await postMcp(server.url, abortingToken, rpc('ping'));
      expect(after.status).toBe(200);
      expect(after.body?.result).toEqual({});
    });

    it('writes no call-log row for them (they belong to no organization) and counts them in the server log instead', async () => {
      for (const bearer of [null, 'garbage', 'mcp_at_not-a-real-token']) expect((await postFrom('127.0.0.23', bearer)).status).toBe(401);
      expect((await postFrom('127.0.0.23', token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // the call log is flushed every second
      // The tally is logged once a minute and when the server stops.
      await server.halt();
      const output = server.output();
      expect(output).toMatch(/mcp: \d+ requests? without a valid access token/);
      server = await startServer(server.restartOptions);
      let counts: { anonymous: number; logged: number; unavailable: number }[] = [];
      ({ server, result: counts } = await inspectDatabase(server, (query) =>
        query<{ anonymous: number; logged: number; unavailable: number }>(
          `SELECT count(*) FILTER (WHERE org_id IS NULL)::int AS anonymous, count(*) FILTER (WHERE org_id IS NOT NULL)::int AS logged,
                  count(*) FILTER (WHERE outcome = 'unavailable')::int AS unavailable FROM mcp_calls`,
        ),
      ));
      expect(counts[0]!.anonymous).toBe(0);
      expect(counts[0]!.logged).toBeGreaterThan(0);
      // The disconnected clients above were no outage.
      expect(counts[0]!.unavailable).toBe(0);
    }, 60_000);
  });

  describe('the JSON-RPC envelope', () => {
    it('refuses a body over 1 MiB with 413 and -32600', async () => {
      const reply = await postMcp(server.url, token, { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } });
      expect(reply.status).toBe(413);
      expect(reply.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body too large' } });
    });

    it('answers malformed JSON with -32700 Parse error', async () => {
      const reply = await postMcp(server.url, token, '{"jsonrpc": "2.0", "id": 1,');
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    });

    it('refuses batches, even of one request', async () => {
      for (const batch of [[rpc('ping')], []]) {
        const reply = await postMcp(server.url, token, batch);
        expect(reply.status).toBe(400);
        expect(reply.body?.error).toEqual({ code: -32600, message: 'Batch requests are not supported' });
        expect(reply.body?.id).toBeNull();
      }
    });

    it.each([
      ['jsonrpc other than "2.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }],
      ['no jsonrpc', { id: 1, method: 'ping' }],
      ['no method', { jsonrpc: '2.0', id: 1 }],
      ['a method over 256 bytes', { jsonrpc: '2.0', id: 1, method: 'm'.repeat(257) }],
      ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }],
      ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
      ['a string id over 256 bytes', { jsonrpc: '2.0', id: 'i'.repeat(257), method: 'ping' }],
    ])('refuses %s with 400 and -32600', async (_what, body) => {
      const reply = await postMcp(server.url, token, body);
      expect(reply.status).toBe(400);
      expect(reply.body?.error.code).toBe(-32600);
    });

    it('accepts a notification with 202 and no body', async () => {
      const reply = await postMcp(server.url, token, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(reply.status).toBe(202);
      expect(reply.text).toBe('');
    });

    it('answers in JSON by default, and in one SSE message event only when JSON is not accepted', async () => {
      const json = await postMcp(server.url, token, rpc('ping', undefined, 7), { accept: 'application/json, text/event-stream' });
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(json.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
      const sse = await postMcp(server.url, token, rpc('ping', undefined, 8), { accept: 'text/event-stream' });
      expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(sse.text).toBe(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 8, result: {} })}\n\n`);
    });
  });

  describe('protocol versions up to 2025-11-25', () => {
    it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('initialize echoes %s with tools, resources, prompts capabilities', async (version) => {
      const reply = await postMcp(server.url, token, rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } }));
      expect(reply.status).toBe(200);
      expect(reply.body?.result).toMatchObject({
        protocolVersion: version,
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
        serverInfo: { name: 'gatehouse' },
      });
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });

    it('answers initialize with an unknown version with 2025-11-25', async () => {
      const reply = await postMcp(server.url, token, rpc('initialize', { protocolVersion: '2024-01-01', capabilities: {} }));
      expect(reply.body?.result.protocolVersion).toBe('2025-11-25');
    });

    it('takes a request without MCP-Protocol-Version as 2025-03-26', async () => {
      const reply = await postMcp(server.url, token, rpc('ping'));
      expect(reply.headers.get('mcp-protocol-version')).toBe('2025-03-26');
    });

    it('refuses an unsupported MCP-Protocol-Version with 400 and the supported list', async () => {
      const reply = await postMcp(server.url, token, rpc('ping'), { 'mcp-protocol-version': '1999-01-01' });
      expect(reply.status).toBe(400);
      expect(reply.body?.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'], requested: '1999-01-01' },
      });
    });

    // Names of Object.prototype members are not versions, tools or prompts: look-ups by untrusted keys
    // read own entries only.
    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('refuses MCP-Protocol-Version: %s as unsupported', async (version) => {
      const reply = await postMcp(server.url, token, rpc('ping'), { 'mcp-protocol-version': version });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('mcp-protocol-version')).not.toBe('undefined');
      expect(reply.body?.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'], requested: version },
      });
    });

    it.each(['__proto__', 'constructor', 'toString'])('answers tools/call and prompts/get named %s as unknown (-32602)', async (name) => {
      const tool = await postMcp(server.url, token, rpc('tools/call', { name, arguments: {} }));
      expect(tool.status).toBe(200);
      expect(tool.body?.error).toEqual({ code: -32602, message: `Unknown tool: ${name}` });
      const prompt = await postMcp(server.url, token, rpc('prompts/get', { name }));
      expect(prompt.status).toBe(200);
      expect(prompt.body?.error).toMatchObject({ code: -32602, message: `Unknown prompt: ${name}` });
      const wrapped = await postMcp(server.url, token, rpc('tools/call', { name: 'execute_tool', arguments: { name } }));
      expect(wrapped.body?.result?.isError).toBe(true);
      expect(wrapped.body?.result?.content?.[0]?.text).toMatch(/no tool named/);
    });

    it('answers an unknown method with HTTP 200 and -32601', async () => {
      const reply = await postMcp(server.url, token, rpc('no/such/method'), { 'mcp-protocol-version': '2025-06-18' });
      expect(reply.status).toBe(200);
      expect(reply.body?.error.code).toBe(-32601);
    });
  });

  describe('protocol version 2026-07-28', () => {
    it('answers server/discover with the supported versions, capabilities, resultType and cache hints', async () => {
      const { body, headers } = rpc2026('server/discover');
      const reply = await postMcp(server.url, token, body, headers);
      expect(reply.status).toBe(200);
      expect(reply.body?.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
        ttlMs: 60000,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'gatehouse' } },
      });
    });

    it('puts resultType and cache hints on list results', async () => {
      const { body, headers } = rpc2026('tools/list');
      const reply = await postMcp(server.url, token, body, headers);
      expect(reply.body?.result).toMatchObject({ resultType: 'complete', ttlMs: 60000, cacheScope: 'private' });
      expect(reply.body?.result.tools.length).toBeGreaterThan(0);
    });

    it('has neither initialize nor ping: unknown methods are 404 with -32601', async () => {
      for (const method of ['ping', 'initialize', 'no/such/method']) {
        const { body, headers } = rpc2026(method);
        const reply = await postMcp(server.url, token, body, headers);
        expect(reply.status, method).toBe(404);
        expect(reply.body?.error.code, method).toBe(-32601);
      }
    });

    it('refuses a request whose Mcp-Method or Mcp-Name disagrees with the body, or lacks them', async () => {
      const call = rpc2026('tools/call', { name: 'whoami', arguments: {} });
      const cases: Record<string, string | undefined>[] = [{ 'mcp-method': 'tools/list' }, { 'mcp-method': undefined }, { 'mcp-name': 'list_members' }, { 'mcp-name': undefined }];
      for (const change of cases) {
        const headers = { ...call.headers };
        for (const [name, value] of Object.entries(change)) {
          if (value === undefined) delete headers[name];
          else headers[name] = value;
        }
        const reply = await postMcp(server.url, token, call.body, headers);
        expect(reply.status, JSON.stringify(change)).toBe(400);
        expect(reply.body?.error.code, JSON.stringify(change)).toBe(-32020);
      }
      const encoded = { ...call.headers, 'mcp-name': `=?base64?${Buffer.from('whoami').toString('base64')}?=` };
      expect((await postMcp(server.url, token, call.body, encoded)).status).toBe(200);
    });

    it('refuses a request without the protocol version and capabilities in _meta', async () => {
      const reply = await postMcp(server.url, token, rpc('tools/list', {}), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
      expect(reply.status).toBe(400);
      expect(reply.body?.error.code).toBe(-32602);
    });

    it('refuses a _meta version that disagrees with the header', async () => {
      const { body, headers } = rpc2026('tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' });
      const reply = await postMcp(server.url, token, body, headers);
      expect(reply.status).toBe(400);
      expect(reply.body?.error.code).toBe(-32020);
    });
  });
});
