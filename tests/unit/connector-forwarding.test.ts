// What decides a connector tool call before and after it reaches the upstream, without a network: the gates
// in their order (lib/mcp/gates.ts passConnectorGates: restriction, hold for review, scope, role, arguments),
// the words an upstream failure is reported in (lib/connectors/upstream.ts upstreamError), and the depth
// check that keeps a deeply nested answer from overflowing the stack when it is sent on.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { depthExceeds } from '@/lib/connectors/forward';
import { upstreamError } from '@/lib/connectors/upstream';
import type { Caller } from '@/lib/mcp/caller';
import { testCaller } from '../helpers/caller';
import { CONNECTOR_ARGUMENTS_BYTES, passConnectorGates } from '@/lib/mcp/gates';

beforeAll(() => {
  process.env.PUBLIC_URL = 'https://gatehouse.example';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'gatehouse-connector-gates-'));
});

const caller = testCaller;

const notes = { name: 'Notes', slug: 'notes' };
type GatedConnectorTool = Parameters<typeof passConnectorGates>[1];
const search: GatedConnectorTool = { name: 'notes__search', scope: 'mcp:read', permission: null, held: false, connector: notes };
const remove: GatedConnectorTool = { ...search, name: 'notes__delete', scope: 'mcp:write' };

describe('the gates of a connector tool', () => {
  it('lets a member with the scope through, with the arguments as given', () => {
    expect(passConnectorGates(caller(), search, { text: 'hi' })).toEqual({ ok: true, input: { text: 'hi' } });
    expect(passConnectorGates(caller({ scopes: ['mcp:read'] }), search, undefined)).toEqual({ ok: true, input: {} });
  });

  it('refuses in order: the org switch, then a hold for review, then the scope, then the role', () => {
    const kind = (who: Caller, tool: GatedConnectorTool) => {
      const outcome = passConnectorGates(who, tool, {});
      return outcome.ok ? 'ok' : outcome.refusal.kind;
    };
    const held = { ...remove, held: true };
    expect(kind(caller({ restricted: ['notes__delete'], scopes: ['mcp:read'], role: 'viewer' }), held)).toBe('restricted');
    expect(kind(caller({ scopes: ['mcp:read'], role: 'viewer' }), held)).toBe('held_for_review');
    expect(kind(caller({ scopes: ['mcp:read'], role: 'viewer' }), remove)).toBe('refused_scope');
    expect(kind(caller({ role: 'viewer' }), remove)).toBe('refused_role');
    // Restricted by its exposed name only: another tool of the connector is not.
    expect(kind(caller({ restricted: ['notes__delete'] }), search)).toBe('ok');
  });

  it('names the connector when a tool is held, and sends the step-up challenge for a missing scope', () => {
    const held = passConnectorGates(caller(), { ...search, held: true }, {});
    expect(held.ok || held.refusal.text).toMatch(/"notes__search" is held for review: the connector "Notes" \(notes\)/);
    const scope = passConnectorGates(caller({ scopes: ['mcp:read'] }), remove, {});
    expect(scope.ok || scope.refusal.headers?.['WWW-Authenticate']).toMatch(/scope="mcp:write", error="insufficient_scope"/);
  });

  it('takes only an object of arguments, within the size limit', () => {
    for (const args of [[], 'text', 7, null, [{ a: 1 }]]) {
      const outcome = passConnectorGates(caller(), search, args);
      if (args === null) {
        // Absent arguments (null or undefined) are an empty object, as for built-in tools.
        expect(outcome.ok).toBe(true);
        continue;
      }
      expect(outcome.ok ? 'ok' : outcome.refusal.kind, JSON.stringify(args)).toBe('invalid_arguments');
    }
    const big = { text: 'x'.repeat(CONNECTOR_ARGUMENTS_BYTES) };
    const refused = passConnectorGates(caller(), search, big);
    expect(refused.ok || refused.refusal.text).toContain(`larger than ${CONNECTOR_ARGUMENTS_BYTES} bytes`);
    expect(passConnectorGates(caller(), search, { text: 'x'.repeat(CONNECTOR_ARGUMENTS_BYTES - 20) }).ok).toBe(true);
  });
});

describe('the words of an upstream failure', () => {
  const target = { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer upstream-secret' }, timeoutMs: 1500 };
  const read = (error: unknown) => {
    const failure = upstreamError(error, target);
    return { kind: failure.kind, message: failure.message };
  };

  it('tells a timeout, a JSON-RPC error, a forgotten session, a refused credential and an HTTP error apart', () => {
    // The SDK's own timeout and closed transport...
    expect(read(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 1500 }))).toEqual({
      kind: 'timeout',
      message: 'the upstream did not answer within 1500 ms',
    });
    expect(read(McpError.fromError(ErrorCode.ConnectionClosed, 'Connection closed')).kind).toBe('unreachable');
    // ...are not an upstream's answer with the same codes, which is its own error, in its words.
    expect(read(new McpError(ErrorCode.InternalError, 'kaboom'))).toEqual({ kind: 'jsonrpc', message: 'the upstream answered with an error (-32603: kaboom)' });
    expect(read(new McpError(ErrorCode.ConnectionClosed, 'hostile says no'))).toEqual({ kind: 'jsonrpc', message: 'the upstream answered with an error (-32000: hostile says no)' });
    expect(read(new McpError(ErrorCode.RequestTimeout, 'pretend timeout')).kind).toBe('jsonrpc');
    expect(read(new StreamableHTTPError(404, 'Error POSTing to endpoint: Session not found')).kind).toBe('session_gone');
    expect(read(new StreamableHTTPError(401, 'no')).kind).toBe('refused');
    expect(read(new StreamableHTTPError(403, 'no')).kind).toBe('refused');
    expect(read(new StreamableHTTPError(502, 'bad gateway'))).toEqual({ kind: 'unreachable', message: 'the upstream at http://127.0.0.1:9 answered HTTP 502' });
    expect(read(new StreamableHTTPError(-1, 'Unexpected content type: text/html')).kind).toBe('malformed');
    expect(read(new SyntaxError('Unexpected token < in JSON')).kind).toBe('malformed');
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    expect(read(refused)).toEqual({ kind: 'unreachable', message: 'the upstream at http://127.0.0.1:9 could not be reached (Error: connect ECONNREFUSED 127.0.0.1:9)' });
  });

  it("keeps the upstream's words to one bounded line without control characters, and never names the credential", () => {
    const { message } = read(new McpError(-32000 + 5, `first line\u0000\u001b[31m${'x'.repeat(500)}\nsecond line`));
    expect([...message].some((character) => character.charCodeAt(0) < 0x20)).toBe(false);
    expect(message).not.toContain('second line');
    expect(message.length).toBeLessThan(300);
    for (const error of [McpError.fromError(ErrorCode.RequestTimeout, 'x', { timeout: 1 }), new StreamableHTTPError(401, 'x'), new TypeError('fetch failed')]) {
      expect(read(error).message).not.toContain('upstream-secret');
    }
  });
});

describe('the depth check', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { child: value };
    return value;
  };

  it('lets 64 levels through and refuses 65', () => {
    expect(depthExceeds(nested(64), 64)).toBe(false);
    expect(depthExceeds(nested(65), 64)).toBe(true);
    expect(depthExceeds({ content: [{ type: 'text', text: 'flat' }] }, 64)).toBe(false);
  });

  it('walks any depth without overflowing the stack', () => {
    expect(depthExceeds(nested(200_000), 64)).toBe(true);
  });
});

// docs/connectors.md shows how an upstream verifies the identity assertion; the code it shows must be the
// code the integration test runs (tests/helpers/identity-upstream.ts), not a copy that drifts.
describe('the documented identity check', () => {
  it('is, line for line, the one the identity test runs', async () => {
    const { readFileSync } = await import('node:fs');
    const helper = readFileSync('tests/helpers/identity-upstream.ts', 'utf8');
    const shown = readFileSync('docs/connectors.md', 'utf8');
    const start = helper.indexOf("  // Gatehouse's signing keys");
    const end = helper.indexOf('  function mcpServer()');
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(shown).toContain(helper.slice(start, end).trimEnd());
  });
});
