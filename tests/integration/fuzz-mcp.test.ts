// docs/protocol.md §6 under hostile input: thousands of generated bodies, headers and tool arguments sent to POST /mcp
// with a valid bearer token (so that they reach parsing, version rules, dispatch and the tools, not only
// the 401 path), and some with broken credentials. Every answer must be a well-formed JSON-RPC answer —
// an error object with a numeric code for anything refused — never a 5xx and never a hang, and the
// server must stay up with flat memory.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { fetchWithin, fuzz, hostileHeaderValue, hostileJsonBody, hostileString, mutatedObjectText, tallied, total, type Bytes, type Tally, wrongTypeText } from '../helpers/hostile-input';
import { expectStillUp, memoryProbe } from '../helpers/server-health';
import { connect, register } from '../helpers/oauth';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

/** Inputs per run, sized to keep this file near a minute on a slow 2-core machine. */
const INPUTS = 2400;

const VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const METHODS = [
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'notifications/initialized',
  'logging/setLevel',
  'completion/complete',
];

/** A valid params object per method, for the fuzzer to break field by field. */
const TOOL_ARGUMENTS: Record<string, Record<string, unknown>> = {
  whoami: {},
  list_connected_apps: {},
  list_members: {},
  read_audit_log: { type: 'grant.revoked', since: '2026-01-01T00:00:00Z', limit: 5, cursor: '10' },
  revoke_connected_app: { grant_id: 'no-such-grant' },
  execute_tool: { name: 'whoami', arguments: {} },
};

const meta2026 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

/** params for tools/call: a known tool (or a hostile name) with its arguments broken field by field. */
const toolCall = fc.constantFrom(...Object.keys(TOOL_ARGUMENTS)).chain((name) =>
  mutatedObjectText(
    { name, arguments: TOOL_ARGUMENTS[name], _meta: meta2026 },
    {
      arguments: fc.oneof({ weight: 4, arbitrary: mutatedObjectText(TOOL_ARGUMENTS[name]!) }, { weight: 1, arbitrary: wrongTypeText }),
      name: fc.oneof({ weight: 4, arbitrary: fc.constant(JSON.stringify(name)) }, { weight: 1, arbitrary: hostileString.map((text) => JSON.stringify(text)) }),
    },
  ).map((params) => ({ method: 'tools/call', name, params })),
);

/** params for every other method, built from the fields any of them reads. */
const otherCall = fc.constantFrom(...METHODS.filter((method) => method !== 'tools/call')).chain((method) =>
  mutatedObjectText({
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'fuzz', version: '1' },
    uri: 'gatehouse://organization/profile',
    name: 'summarize_audit_activity',
    arguments: { days: '7' },
    _meta: meta2026,
  }).map((params) => ({ method, name: method === 'resources/read' ? 'gatehouse://organization/profile' : 'summarize_audit_activity', params })),
);

const id = fc.oneof(
  fc.integer().map(String),
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
  fc.constant(null),
);

/**
 * One request: mostly a valid envelope around fuzzed params (so that dispatch and the tools see them),
 * with headers that usually agree with it; else a broken envelope, or any body at all.
 */
const request = fc.oneof(toolCall, otherCall).chain(({ method, name, params }) =>
  fc.record({
    body: fc.oneof(
      { weight: 6, arbitrary: id.map((value) => `{"jsonrpc":"2.0",${value === null ? '' : `"id":${value},`}"method":${JSON.stringify(method)},"params":${params}}`) },
      {
        weight: 2,
        arbitrary: mutatedObjectText(
          { jsonrpc: '2.0', id: 1, method, params: {} },
          {
            params: fc.constant(params),
            method: fc.oneof(
              fc.constantFrom(...METHODS).map((known) => JSON.stringify(known)),
              wrongTypeText,
            ),
          },
        ),
      },
      { weight: 2, arbitrary: hostileJsonBody({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} }) },
    ),
    headers: fc.record(
      {
        'mcp-protocol-version': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...VERSIONS) }, { weight: 1, arbitrary: hostileHeaderValue }),
        'mcp-method': fc.oneof({ weight: 3, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: hostileHeaderValue }),
        'mcp-name': fc.oneof({ weight: 3, arbitrary: fc.constant(name) }, { weight: 1, arbitrary: hostileHeaderValue }),
        accept: fc.oneof(fc.constantFrom('application/json, text/event-stream', 'text/event-stream', 'application/json', '*/*'), hostileHeaderValue),
        'content-type': fc.oneof(fc.constant('application/json'), hostileHeaderValue),
        traceparent: hostileHeaderValue,
        'last-event-id': hostileHeaderValue,
        'mcp-session-id': hostileHeaderValue,
      },
      { requiredKeys: ['mcp-protocol-version', 'accept'] },
    ),
  }),
);

/** Mostly the real token; sometimes one broken in a way the bearer check must refuse with 401. */
function authorization(token: string) {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${token}`) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        hostileHeaderValue,
        hostileHeaderValue.map((value) => `Bearer ${value}`),
        fc.constantFrom(`bearer  ${token}`, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, `Bearer ${token}, Bearer ${token}`, 'Bearer', 'Bearer '),
      ),
    },
  );
}

/** The JSON-RPC message(s) of an answer: the JSON body, or the data of its SSE events. */
function messagesOf(contentType: string, text: string): unknown[] {
  if (contentType.startsWith('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)));
  }
  expect(contentType).toMatch(/^application\/json/);
  return [JSON.parse(text)];
}

describe.each([DATABASES.at(-1)!])('/mcp under hostile input (%s database)', (database) => {
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    // Budgets sized for a fuzzer, not a client: the rate limit is its own test (mcp-wire).
    server = await startServer({ database, env: { MCP_RATE_LIMIT_PER_MINUTE: '10000000', MCP_UNAUTHENTICATED_RATE_LIMIT: '10000000' } });
    const client = await register(server.url, { client_name: 'Fuzz', redirect_uris: ['https://fuzz.example/cb'] });
    token = (await connect(server.url, client, { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD })).tokens.access_token;
  });
  afterAll(async () => server?.stop());

  it('answers every generated request with a well-formed JSON-RPC answer, never a 5xx or a hang, and stays up with flat memory', async () => {
    const tally: Tally = {};
    const input = fc.tuple(request, authorization(token)).map(([{ body, headers }, auth]) => ({ body, headers, authorization: auth }));
    const send = async ({ body: payload, headers: extra, authorization: auth }: { body: string | Bytes; headers: Record<string, string>; authorization: string }) => {
      const response = await fetchWithin(`${server.url}/mcp`, { method: 'POST', headers: { ...extra, authorization: auth }, body: payload });
      const text = await response.text();
      tallied(tally, response.status);
      const where = `${response.status} for ${typeof payload === 'string' ? payload.slice(0, 300) : `${payload.length} bytes`} with ${JSON.stringify(extra).slice(0, 300)}: ${text.slice(0, 300)}`;
      expect(response.status, where).toBeLessThan(500);
      expect(response.headers.get('mcp-session-id'), where).toBeNull();
      if (response.status === 202) {
        expect(text, where).toBe('');
        return;
      }
      if (response.status === 401) expect(response.headers.get('www-authenticate'), where).toMatch(/^Bearer /);
      const messages = messagesOf(response.headers.get('content-type') ?? '', text);
      expect(messages, where).toHaveLength(1);
      const message = messages[0] as Record<string, any>;
      expect(message.jsonrpc, where).toBe('2.0');
      expect('id' in message, where).toBe(true);
      if (response.status >= 400 || !('result' in message)) {
        expect(Number.isInteger(message.error?.code), where).toBe(true);
        expect(typeof message.error.message, where).toBe('string');
      } else {
        expect(typeof message.result, where).toBe('object');
      }
    };

    const memory = memoryProbe(server);
    let tried = await fuzz(input, { inputs: INPUTS / 2, parallel: 4 }, send);
    await memory.mark();
    tried += await fuzz(input, { inputs: INPUTS / 2, parallel: 4 }, send);
    await memory.mark();

    console.log(`/mcp: ${tried} hostile requests, answers by status ${JSON.stringify(tally)}; ${memory.describe()}`);
    expect(total(tally)).toBe(tried);
    // A valid token, so most inputs must get past the bearer check into the JSON-RPC layers.
    expect((tally['200'] ?? 0) + (tally['400'] ?? 0) + (tally['404'] ?? 0)).toBeGreaterThan(tried / 2);
    await expectStillUp(server);
    memory.expectFlat();
  }, 180_000);
});
