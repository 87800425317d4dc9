// Which protocol revision a request speaks, and the checks 2026-07-28 adds (lib/mcp/negotiation.ts,
// docs/protocol.md §6 step 7): the version and client capabilities in params._meta, and the Mcp-Method / Mcp-Name
// headers that must agree with the body, with the =?base64?…?= form for values that are not header-safe.
import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from '@/lib/mcp/envelope';
import { McpError } from '@/lib/mcp/errors';
import { calledToolHint, checkVersionRules, negotiateVersion } from '@/lib/mcp/negotiation';
import { VERSIONS } from '@/lib/mcp/versions';

const SUPPORTED = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
const V2026 = VERSIONS['2026-07-28'];
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

function refusalOf(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('accepted');
}

function message(method: string, params: Record<string, unknown> = {}, id: JsonRpcMessage['id'] = 1): JsonRpcMessage {
  return { id, method, params };
}

/** A message without an id (a default parameter would turn an explicit undefined into 1). */
function notification(method: string, params: Record<string, unknown> = {}): JsonRpcMessage {
  return { id: undefined, method, params };
}

/** A 2026-07-28 request as a conforming client sends it: _meta, Mcp-Method and, where the method names something, Mcp-Name. */
function request2026(method: string, params: Record<string, unknown> = {}, headers: Record<string, string | null> = {}) {
  const name = params.name ?? params.uri;
  const base: Record<string, string> = { 'mcp-method': method };
  if (typeof name === 'string' && ['tools/call', 'resources/read', 'prompts/get'].includes(method)) base['mcp-name'] = name;
  for (const [key, value] of Object.entries(headers)) {
    if (value === null) delete base[key];
    else base[key] = value;
  }
  return { headers: new Headers(base), message: message(method, { ...params, _meta: { ...META, ...(params._meta as object) } }) };
}

const base64 = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

describe('negotiateVersion', () => {
  it.each([
    ['no header', null],
    ['an empty header', ''],
    ['a header of spaces', '   '],
    ['a header of a tab', '\t'],
  ])('takes %s as 2025-03-26', (_what, header) => {
    expect(negotiateVersion(header)).toBe(VERSIONS['2025-03-26']);
  });

  it.each(SUPPORTED)('takes %s as that revision, surrounding whitespace or not', (version) => {
    expect(negotiateVersion(version)).toBe(VERSIONS[version as keyof typeof VERSIONS]);
    expect(negotiateVersion(` ${version}\t`).version).toBe(version);
  });

  it.each(['1999-01-01', '2024-11-05', '2025-06-18, 2025-11-25', '2025-06-18x', '=?base64?MjAyNS0wNi0xOA==?=', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'refuses %j with -32022, 400 and the supported list',
    (header) => {
      const refusal = refusalOf(() => negotiateVersion(header));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32022, 400, 'Unsupported protocol version']);
      expect(refusal.options.data).toEqual({ supported: SUPPORTED, requested: header.trim() });
    },
  );

  it('reports the requested version trimmed', () => {
    expect(refusalOf(() => negotiateVersion('  2030-01-01 ')).options.data).toEqual({ supported: SUPPORTED, requested: '2030-01-01' });
  });
});

describe('checkVersionRules up to 2025-11-25', () => {
  it.each(LEGACY)('%s asks for no _meta and no headers, and reads no trace context', (version) => {
    const rules = VERSIONS[version];
    const headers = new Headers({ 'mcp-method': 'something/else', 'mcp-name': 'other' });
    const traced = { _meta: { traceparent: TRACEPARENT } };
    expect(checkVersionRules(rules, new Headers(), message('tools/call', { name: 'whoami' }))).toBeNull();
    expect(checkVersionRules(rules, headers, message('tools/call', { name: 'whoami', ...traced }))).toBeNull();
    expect(checkVersionRules(rules, headers, notification('notifications/initialized', traced))).toBeNull();
    expect(checkVersionRules(rules, new Headers(), message('ping', { _meta: 'not an object' }))).toBeNull();
  });
});

describe('checkVersionRules for 2026-07-28', () => {
  describe('the request _meta', () => {
    it('accepts a request carrying the version and capabilities', () => {
      const { headers, message } = request2026('tools/list');
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    it.each([
      ['no _meta', undefined],
      ['a null _meta', null],
      ['an empty _meta', {}],
      ['a _meta that is a string', 'io.modelcontextprotocol/protocolVersion'],
      ['a _meta that is an array', ['2026-07-28', {}]],
      ['no protocolVersion', { 'io.modelcontextprotocol/clientCapabilities': {} }],
      ['no clientCapabilities', { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }],
      ['a numeric protocolVersion', { ...META, 'io.modelcontextprotocol/protocolVersion': 20260728 }],
      ['null clientCapabilities', { ...META, 'io.modelcontextprotocol/clientCapabilities': null }],
      ['string clientCapabilities', { ...META, 'io.modelcontextprotocol/clientCapabilities': 'all' }],
      ['array clientCapabilities', { ...META, 'io.modelcontextprotocol/clientCapabilities': [] }],
      ['keys without the io.modelcontextprotocol/ prefix', { protocolVersion: '2026-07-28', clientCapabilities: {} }],
    ])('refuses a request with %s with -32602, 400', (_what, meta) => {
      const params = meta === undefined ? {} : { _meta: meta };
      const refusal = refusalOf(() => checkVersionRules(V2026, new Headers({ 'mcp-method': 'tools/list' }), message('tools/list', params)));
      expect([refusal.code, refusal.httpStatus]).toEqual([-32602, 400]);
      expect(refusal.message).toMatch(/^Invalid params: _meta must carry io\.modelcontextprotocol\/protocolVersion and io\.modelcontextprotocol\/clientCapabilities$/);
    });

    it('does not take the _meta keys from Object.prototype', () => {
      const refusal = refusalOf(() =>
        checkVersionRules(V2026, new Headers({ 'mcp-method': 'ping' }), message('ping', { _meta: JSON.parse('{"__proto__": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}') })),
      );
      expect(refusal.code).toBe(-32602);
    });

    it.each(['2025-11-25', '2026-07-28 ', '', 'constructor'])('refuses a _meta version %j that disagrees with the header with -32020, 400', (version) => {
      const { headers, message } = request2026('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': version } });
      const refusal = refusalOf(() => checkVersionRules(V2026, headers, message));
      expect([refusal.code, refusal.httpStatus]).toEqual([-32020, 400]);
      expect(refusal.message).toBe(`MCP-Protocol-Version header value '2026-07-28' does not match body value '${version}'`);
    });

    it('asks no _meta of a notification', () => {
      expect(checkVersionRules(V2026, new Headers(), notification('notifications/initialized', {}))).toBeNull();
    });

    it('takes a request with id 0 or "" as a request, not a notification', () => {
      for (const id of [0, '']) {
        expect(refusalOf(() => checkVersionRules(V2026, new Headers({ 'mcp-method': 'ping' }), message('ping', {}, id))).code).toBe(-32602);
      }
    });
  });

  describe('the Mcp-Method header', () => {
    it('refuses a request without it with -32020, 400', () => {
      const { headers, message } = request2026('tools/list', {}, { 'mcp-method': null });
      const refusal = refusalOf(() => checkVersionRules(V2026, headers, message));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32020, 400, 'Header mismatch: the Mcp-Method header is required']);
    });

    it.each(['tools/call', 'TOOLS/LIST', 'tools/list/', 'tools', ''])('refuses Mcp-Method %j for tools/list with -32020, 400', (value) => {
      const { headers, message } = request2026('tools/list', {}, { 'mcp-method': value });
      const refusal = refusalOf(() => checkVersionRules(V2026, headers, message));
      expect([refusal.code, refusal.httpStatus]).toEqual([-32020, 400]);
      expect(refusal.message).toBe(`Header mismatch: Mcp-Method header value '${value}' does not match body value 'tools/list'`);
    });

    it('accepts it with surrounding whitespace (header values are trimmed, RFC 9110 §5.5)', () => {
      const { headers, message } = request2026('tools/list', {}, { 'mcp-method': '  tools/list\t' });
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    it('accepts it base64-encoded', () => {
      const { headers, message } = request2026('tools/list', {}, { 'mcp-method': base64('tools/list') });
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    it('checks a notification only when the header is present', () => {
      const initialized = notification('notifications/initialized', {});
      expect(checkVersionRules(V2026, new Headers(), initialized)).toBeNull();
      expect(checkVersionRules(V2026, new Headers({ 'mcp-method': 'notifications/initialized' }), initialized)).toBeNull();
      const refusal = refusalOf(() => checkVersionRules(V2026, new Headers({ 'mcp-method': 'ping' }), initialized));
      expect([refusal.code, refusal.httpStatus]).toEqual([-32020, 400]);
    });
  });

  describe('the Mcp-Name header', () => {
    it.each([
      ['tools/call', { name: 'whoami', arguments: {} }, 'whoami'],
      ['prompts/get', { name: 'summarize_audit_activity' }, 'summarize_audit_activity'],
      ['resources/read', { uri: 'gatehouse://org/profile' }, 'gatehouse://org/profile'],
    ])('is required for %s and must match the name or uri', (method, params, name) => {
      const good = request2026(method, params);
      expect(checkVersionRules(V2026, good.headers, good.message)).toBeNull();

      const missing = request2026(method, params, { 'mcp-name': null });
      const refusal = refusalOf(() => checkVersionRules(V2026, missing.headers, missing.message));
      expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32020, 400, 'Header mismatch: the Mcp-Name header is required']);

      const other = request2026(method, params, { 'mcp-name': 'list_members' });
      const mismatch = refusalOf(() => checkVersionRules(V2026, other.headers, other.message));
      expect([mismatch.code, mismatch.httpStatus, mismatch.message]).toEqual([-32020, 400, `Header mismatch: Mcp-Name header value 'list_members' does not match body value '${name}'`]);
    });

    it('is not asked of methods that name nothing', () => {
      for (const method of ['tools/list', 'prompts/list', 'resources/list', 'server/discover']) {
        const { headers, message } = request2026(method, {});
        expect(checkVersionRules(V2026, headers, message), method).toBeNull();
      }
      const { headers, message } = request2026('tools/list', {}, { 'mcp-name': 'anything' });
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    it('prefers params.name over params.uri', () => {
      const { headers, message } = request2026('tools/call', { name: 'whoami', uri: 'other' });
      expect(headers.get('mcp-name')).toBe('whoami');
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    it('compares case-sensitively', () => {
      const { headers, message } = request2026('tools/call', { name: 'whoami' }, { 'mcp-name': 'WhoAmI' });
      expect(refusalOf(() => checkVersionRules(V2026, headers, message)).code).toBe(-32020);
    });

    it('takes a name that is not a string as the empty name', () => {
      for (const name of [42, null, { x: 1 }, ['whoami']]) {
        const { message } = request2026('tools/call', { name });
        expect(refusalOf(() => checkVersionRules(V2026, new Headers({ 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }), message)).message).toBe(
          "Header mismatch: Mcp-Name header value 'whoami' does not match body value ''",
        );
        expect(refusalOf(() => checkVersionRules(V2026, new Headers({ 'mcp-method': 'tools/call' }), message)).message).toBe('Header mismatch: the Mcp-Name header is required');
      }
    });

    it.each(['__proto__', 'constructor', 'toString'])('matches a name %j like any other name', (name) => {
      const { headers, message } = request2026('tools/call', { name });
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });

    describe('base64 encoding (=?base64?…?= over the UTF-8 bytes, standard alphabet)', () => {
      it.each([
        ['an ASCII name', 'whoami'],
        ['a non-ASCII name', 'café_☕'],
        ['a name with surrounding whitespace', '  whoami '],
        ['a name that looks like the sentinel', '=?base64?literal?='],
        ['a URI with characters of the alphabet’s / and +', 'gatehouse://org/profile?q=a+b'],
      ])('decodes %s before comparing', (_what, name) => {
        const { headers, message } = request2026('tools/call', { name }, { 'mcp-name': base64(name) });
        expect(checkVersionRules(V2026, headers, message)).toBeNull();
      });

      it('refuses an encoded name that decodes to another, naming the decoded value', () => {
        const { headers, message } = request2026('tools/call', { name: 'whoami' }, { 'mcp-name': base64('list_members') });
        const refusal = refusalOf(() => checkVersionRules(V2026, headers, message));
        expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32020, 400, "Header mismatch: Mcp-Name header value 'list_members' does not match body value 'whoami'"]);
      });

      it('does not decode the markers in another case (they are case-sensitive)', () => {
        const upper = `=?BASE64?${Buffer.from('whoami').toString('base64')}?=`;
        const { headers, message } = request2026('tools/call', { name: 'whoami' }, { 'mcp-name': upper });
        expect(refusalOf(() => checkVersionRules(V2026, headers, message)).code).toBe(-32020);
      });

      it('takes the encoded form of the empty string as the empty name', () => {
        const { message } = request2026('tools/call', {});
        expect(checkVersionRules(V2026, new Headers({ 'mcp-method': 'tools/call', 'mcp-name': '=?base64??=' }), message)).toBeNull();
      });

      // Anything wearing the markers is encoded (clients must encode a value that looks like them), so a
      // payload that is no Base64 of UTF-8 is refused as such, not decoded as far as it goes nor compared as text.
      it.each([
        ['bytes that are not UTF-8', '=?base64?/w==?=', '\uFFFD'],
        ['a truncated UTF-8 sequence', `=?base64?${Buffer.from([0x63, 0x61, 0x66, 0xc3]).toString('base64')}?=`, 'caf\uFFFD'],
        ['a character outside the alphabet', '=?base64?d2hv!YW1p?=', 'whoami'],
        ['a URL-safe alphabet', `=?base64?${Buffer.from('a?>b').toString('base64url')}?=`, 'a?>b'],
        ['a space inside', '=?base64?d2hv YW1p?=', 'whoami'],
        ['non-canonical trailing bits', '=?base64?d2hvYW1?=', 'whoam'],
        ['a length no Base64 has', '=?base64?d2hvYW1pY?=', 'whoami'],
      ])('refuses a marked value with %s as not validly encoded', (_what, header, name) => {
        const { headers, message } = request2026('tools/call', { name }, { 'mcp-name': header });
        const refusal = refusalOf(() => checkVersionRules(V2026, headers, message));
        expect([refusal.code, refusal.httpStatus, refusal.message]).toEqual([-32020, 400, 'Header mismatch: the Mcp-Name header is not validly encoded']);
      });

      it('accepts unpadded Base64 and a name that starts with a byte order mark', () => {
        const unpadded = request2026('tools/call', { name: 'who' + 'am' }, { 'mcp-name': '=?base64?d2hvYW0?=' });
        expect(checkVersionRules(V2026, unpadded.headers, unpadded.message)).toBeNull();
        const bom = request2026('tools/call', { name: '\uFEFFwhoami' }, { 'mcp-name': base64('\uFEFFwhoami') });
        expect(checkVersionRules(V2026, bom.headers, bom.message)).toBeNull();
      });

      it('accepts the encoded form with surrounding whitespace', () => {
        const { headers, message } = request2026('tools/call', { name: 'whoami' }, { 'mcp-name': ` ${base64('whoami')} ` });
        expect(checkVersionRules(V2026, headers, message)).toBeNull();
      });
    });
  });

  describe('oversized values', () => {
    it('compares a long name in full, plain or encoded', () => {
      const name = 'n'.repeat(64 * 1024);
      const plain = request2026('tools/call', { name });
      expect(checkVersionRules(V2026, plain.headers, plain.message)).toBeNull();
      const encoded = request2026('tools/call', { name }, { 'mcp-name': base64(name) });
      expect(checkVersionRules(V2026, encoded.headers, encoded.message)).toBeNull();
      const off = request2026('tools/call', { name }, { 'mcp-name': `${name.slice(1)}x` });
      expect(refusalOf(() => checkVersionRules(V2026, off.headers, off.message)).code).toBe(-32020);
    });

    it('refuses a long protocol version header as unsupported', () => {
      const header = '2026-07-28'.repeat(10_000);
      const refusal = refusalOf(() => negotiateVersion(header));
      expect([refusal.code, refusal.httpStatus]).toEqual([-32022, 400]);
    });

    it('ignores a long traceparent', () => {
      const { headers, message } = request2026('tools/list', { _meta: { traceparent: `${TRACEPARENT}-${'a'.repeat(100_000)}` } });
      expect(checkVersionRules(V2026, headers, message)).toBeNull();
    });
  });

  describe('trace context (W3C Trace Context, traceparent in params._meta)', () => {
    function traceOf(traceparent: unknown): string | null {
      const { headers, message } = request2026('tools/list', { _meta: { traceparent } });
      return checkVersionRules(V2026, headers, message);
    }

    it('returns the trace id of a valid traceparent, trimmed', () => {
      expect(traceOf(TRACEPARENT)).toBe(TRACE_ID);
      expect(traceOf(` ${TRACEPARENT} `)).toBe(TRACE_ID);
    });

    it('reads it from a notification too', () => {
      expect(checkVersionRules(V2026, new Headers(), notification('notifications/initialized', { _meta: { traceparent: TRACEPARENT } }))).toBe(TRACE_ID);
    });

    it.each([
      ['none', undefined],
      ['a number', 42],
      ['an object', { traceId: TRACE_ID }],
      ['an empty string', ''],
      ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
      ['upper-case hex', TRACEPARENT.toUpperCase()],
      ['a short trace id', `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`],
      ['a short parent id', `00-${TRACE_ID}-00f067aa0ba902b-01`],
      ['no flags', `00-${TRACE_ID}-00f067aa0ba902b7`],
      ['other separators', `00_${TRACE_ID}_00f067aa0ba902b7_01`],
      ['a non-hex character', `00-${TRACE_ID.slice(0, 31)}g-00f067aa0ba902b7-01`],
      // W3C Trace Context §3.2.2: version ff and an all-zero parent-id are invalid, and then the whole
      // traceparent MUST be ignored.
      ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
      ['version ff', `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ])('returns no trace id for %s', (_what, traceparent) => {
      expect(traceOf(traceparent)).toBeNull();
    });
  });
});

describe('calledToolHint: the tool a 2026-07-28 tools/call names before its body is read', () => {
  const hint = (headers: Record<string, string>) => calledToolHint(new Headers(headers));
  const call2026 = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };

  it('is the Mcp-Name of a 2026-07-28 tools/call, decoded from its Base64 form', () => {
    expect(hint({ ...call2026, 'mcp-name': 'notes__search' })).toBe('notes__search');
    expect(hint({ ...call2026, 'mcp-name': ' notes__search ' })).toBe('notes__search');
    expect(hint({ ...call2026, 'mcp-name': base64('notes__sūche') })).toBe('notes__sūche');
    expect(hint({ ...call2026, 'mcp-method': base64('tools/call'), 'mcp-name': 'notes__search' })).toBe('notes__search');
  });

  it.each(LEGACY)('is none under %s, which has no such headers (the body alone names the tool)', (version) => {
    expect(hint({ 'mcp-protocol-version': version, 'mcp-method': 'tools/call', 'mcp-name': 'notes__search' })).toBeNull();
  });

  it('is none for another method, a missing header, an unknown revision or a value that is no valid encoding', () => {
    expect(hint({ 'mcp-method': 'tools/call', 'mcp-name': 'notes__search' })).toBeNull();
    expect(hint({ ...call2026, 'mcp-method': 'prompts/get', 'mcp-name': 'notes__search' })).toBeNull();
    expect(hint({ 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'notes__search' })).toBeNull();
    expect(hint(call2026)).toBeNull();
    expect(hint({ ...call2026, 'mcp-protocol-version': '2099-01-01', 'mcp-name': 'notes__search' })).toBeNull();
    expect(hint({ ...call2026, 'mcp-name': '=?base64?not*base64?=' })).toBeNull();
  });
});
