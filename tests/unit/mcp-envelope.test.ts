// The JSON-RPC 2.0 envelope of one POST /mcp body (lib/mcp/envelope.ts, docs/protocol.md §6 step 6): what is
// refused before anyone looks at the method, with which code and HTTP status, and what is accepted.
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '@/lib/mcp/envelope';
import { McpError } from '@/lib/mcp/errors';

function refusalOf(text: string): McpError {
  try {
    parseEnvelope(text);
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

const body = (value: unknown) => JSON.stringify(value);

describe('the JSON-RPC envelope', () => {
  describe('refuses', () => {
    it.each([
      ['truncated JSON', '{"jsonrpc": "2.0", "id": 1,'],
      ['an empty body', ''],
      ['whitespace only', '  \n '],
      ['single quotes', "{'jsonrpc': '2.0'}"],
      ['a trailing comma', '{"jsonrpc":"2.0","id":1,"method":"ping",}'],
      ['two objects', '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}'],
      ['NaN', '{"jsonrpc":"2.0","id":NaN,"method":"ping"}'],
    ])('%s with -32700 Parse error, 400', (_what, text) => {
      const refusal = refusalOf(text);
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32700, 400, 'Parse error']);
    });

    // MCP since 2025-06-18 has no batches; an empty array is a batch too.
    it.each([
      ['a batch of one request', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
      [
        'a batch of two',
        [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
        ],
      ],
      ['an empty batch', []],
      ['a batch of garbage', [1, 'x', null]],
    ])('%s with -32600, 400, "Batch requests are not supported"', (_what, batch) => {
      const refusal = refusalOf(body(batch));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Batch requests are not supported']);
    });

    it.each([
      ['null', 'null'],
      ['a number', '1'],
      ['a string', '"ping"'],
      ['true', 'true'],
    ])('a body that is %s, not an object, with -32600', (_what, text) => {
      const refusal = refusalOf(text);
      expect([refusal.code, refusal.httpStatus]).toEqual([-32600, 400]);
      expect(refusal.message).toMatch(/must be a JSON-RPC request object/);
    });

    it.each([
      ['no jsonrpc', { id: 1, method: 'ping' }],
      ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }],
      ['jsonrpc as the number 2.0', { jsonrpc: 2.0, id: 1, method: 'ping' }],
      ['jsonrpc "2.0 " with a space', { jsonrpc: '2.0 ', id: 1, method: 'ping' }],
      ['jsonrpc null', { jsonrpc: null, id: 1, method: 'ping' }],
    ])('%s with -32600 (jsonrpc must be "2.0")', (_what, value) => {
      const refusal = refusalOf(body(value));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: jsonrpc must be "2.0"']);
    });

    it.each([
      ['no method', { jsonrpc: '2.0', id: 1 }],
      ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }],
      ['a numeric method', { jsonrpc: '2.0', id: 1, method: 1 }],
      ['a method that is an array', { jsonrpc: '2.0', id: 1, method: ['ping'] }],
      ['a null method', { jsonrpc: '2.0', id: 1, method: null }],
    ])('%s with -32600 (method must be a non-empty string)', (_what, value) => {
      const refusal = refusalOf(body(value));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: method must be a non-empty string']);
    });

    it('a method over 256 bytes, counted in UTF-8 bytes, not characters', () => {
      for (const method of ['m'.repeat(257), 'é'.repeat(129)]) {
        const refusal = refusalOf(body({ jsonrpc: '2.0', id: 1, method }));
        expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: method must be at most 256 bytes']);
      }
    });

    // JSON-RPC 2.0 §4: a request's id is a string, a number or null; MCP (all revisions) forbids null.
    it.each([
      ['a null id', null],
      ['an object id', { a: 1 }],
      ['an array id', [1]],
      ['a boolean id', true],
    ])('%s with -32600 (id must be a string or a number)', (_what, id) => {
      const refusal = refusalOf(body({ jsonrpc: '2.0', id, method: 'ping' }));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: id must be a string or a number']);
    });

    it('a number id JSON cannot carry exactly (1e999 parses to Infinity)', () => {
      const refusal = refusalOf('{"jsonrpc":"2.0","id":1e999,"method":"ping"}');
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: id must be a string or a number']);
    });

    it('a string id over 256 bytes, counted in UTF-8 bytes', () => {
      for (const id of ['i'.repeat(257), '€'.repeat(86)]) {
        const refusal = refusalOf(body({ jsonrpc: '2.0', id, method: 'ping' }));
        expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: id must be at most 256 bytes']);
      }
    });

    it.each([
      ['an array (by-position params)', [1, 2]],
      ['null', null],
      ['a string', 'x'],
      ['a number', 0],
      ['false', false],
    ])('params that are %s with -32600 (params must be an object)', (_what, params) => {
      const refusal = refusalOf(body({ jsonrpc: '2.0', id: 1, method: 'ping', params }));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32600, 400, 'Invalid Request: params must be an object']);
    });

    it('checks in order: jsonrpc before method, method before id, id before params', () => {
      expect(refusalOf(body({ id: null, params: 1 })).message).toMatch(/jsonrpc/);
      expect(refusalOf(body({ jsonrpc: '2.0', id: null, params: 1 })).message).toMatch(/method/);
      expect(refusalOf(body({ jsonrpc: '2.0', method: 'ping', id: null, params: 1 })).message).toMatch(/id/);
    });
  });

  describe('accepts', () => {
    it('a request with a number id and object params', () => {
      expect(parseEnvelope(body({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }))).toEqual({
        id: 7,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      });
    });

    it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER, ''])('the id %j (zero, negative, fractional and empty ids are ids)', (id) => {
      expect(parseEnvelope(body({ jsonrpc: '2.0', id, method: 'ping' })).id).toBe(id);
    });

    it('a string id of exactly 256 bytes, and a method of exactly 256 bytes', () => {
      const message = parseEnvelope(body({ jsonrpc: '2.0', id: 'i'.repeat(256), method: 'm'.repeat(256) }));
      expect(message.id).toHaveLength(256);
      expect(message.method).toHaveLength(256);
      expect(parseEnvelope(body({ jsonrpc: '2.0', id: 'é'.repeat(128), method: 'ping' })).id).toHaveLength(128);
    });

    it('a message without an id as a notification (id undefined), never as a request with id null', () => {
      const message = parseEnvelope(body({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      expect(message.id).toBeUndefined();
      expect(Object.hasOwn(message, 'id')).toBe(true);
      expect(message.params).toEqual({});
    });

    it('missing params as empty params', () => {
      expect(parseEnvelope(body({ jsonrpc: '2.0', id: 1, method: 'ping' })).params).toEqual({});
    });

    it('members JSON-RPC does not define (they are ignored, not refused)', () => {
      expect(parseEnvelope(body({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true })).method).toBe('ping');
    });

    it('surrounding whitespace around the JSON value', () => {
      expect(parseEnvelope(`\n  ${body({ jsonrpc: '2.0', id: 1, method: 'ping' })}  \n`).id).toBe(1);
    });

    it('a body that is large but under the transport limit (the 1 MiB limit is the body reader’s, not the parser’s)', () => {
      const pad = 'x'.repeat(512 * 1024);
      expect(parseEnvelope(body({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad } })).params.pad).toBe(pad);
    });

    it('deeply nested params without overflowing the stack', () => {
      const nested = `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`;
      expect(parseEnvelope(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${nested}}`).method).toBe('ping');
    });
  });

  // JSON.parse makes `__proto__` an own member, never the prototype: the keys of a body cannot reach
  // Object.prototype, nor give a message an id, a method or params it does not carry itself.
  describe('prototype keys in the body', () => {
    it('a "__proto__" member does not supply the id, method or params', () => {
      const refusal = refusalOf('{"jsonrpc":"2.0","__proto__":{"method":"ping","id":1}}');
      expect(refusal.message).toMatch(/method must be a non-empty string/);
      const message = parseEnvelope('{"jsonrpc":"2.0","method":"ping","__proto__":{"id":1,"params":{"x":1}}}');
      expect(message.id).toBeUndefined();
      expect(message.params).toEqual({});
    });

    it('params with "__proto__" and "constructor" keep them as own data and pollute nothing', () => {
      const message = parseEnvelope('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"name":"whoami"}}');
      expect(message.params.name).toBe('whoami');
      expect(Object.hasOwn(message.params, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(message.params)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('methods named like Object.prototype members are just methods (dispatch answers them as unknown)', () => {
      for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expect(parseEnvelope(body({ jsonrpc: '2.0', id: 1, method })).method).toBe(method);
      }
    });
  });
});
