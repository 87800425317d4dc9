// Look-ups by keys that come from a request (a header, a parameter, a name in a body) find a table's own
// entries only: `key in table` and `table[key]` also find what every object inherits — `__proto__`,
// `constructor`, `toString`… — which then passed as a protocol version, a scope or a message.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { firstValues } from '@/lib/audit/log-filter';
import { parseAuditFilter } from '@/lib/audit/filter';
import { parseCallFilter } from '@/lib/audit/call-log-read';
import { McpError } from '@/lib/mcp/errors';
import { negotiateVersion } from '@/lib/mcp/negotiation';
import { isSupported } from '@/lib/mcp/versions';
import { consentErrorMessage } from '@/lib/oauth/consent-errors';
import { hasOwnKey, ownValue } from '@/lib/own-keys';
import { isMcpScope, normalizeRequestedScope } from '@/lib/oauth/scopes';

const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

describe('look-ups by untrusted keys', () => {
  it.each(INHERITED)('ownValue and hasOwnKey find no %s in a table that does not define it', (key) => {
    const table = { a: 1 };
    expect(ownValue(table, key)).toBeUndefined();
    expect(hasOwnKey(table, key)).toBe(false);
    expect(ownValue(table, 'a')).toBe(1);
    expect(hasOwnKey(table, 'a')).toBe(true);
  });

  it.each(INHERITED)('takes %s for no protocol version, and negotiation refuses it with -32022', (key) => {
    expect(isSupported(key)).toBe(false);
    let refusal: unknown;
    try {
      negotiateVersion(key);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(McpError);
    expect((refusal as McpError).code).toBe(-32022);
    expect(isSupported('2025-06-18')).toBe(true);
  });

  it.each(INHERITED)('takes %s for no mcp scope', (key) => {
    expect(isMcpScope(key)).toBe(false);
    expect(normalizeRequestedScope(`${key} mcp:read`)).toBe('mcp:read');
    expect(isMcpScope('mcp:write')).toBe(true);
  });

  it.each(INHERITED)('shows no consent message for the error code %s', (key) => {
    expect(consentErrorMessage(key)).toBeNull();
    expect(consentErrorMessage('scope')).toMatch(/Tick at least one/);
  });

  it.each(INHERITED)('reads a search parameter named %s as a value of its own, without touching the prototype', (key) => {
    const values = firstValues(
      new URLSearchParams([
        [key, 'x'],
        ['type', 'grant.revoked'],
      ]),
    );
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(Object.hasOwn(values, key)).toBe(true);
    expect(values.type).toBe('grant.revoked');
    expect(
      parseAuditFilter(
        new URLSearchParams([
          [key, 'x'],
          ['type', 'grant.revoked'],
        ]),
      ).type,
    ).toBe('grant.revoked');
  });

  it.each(INHERITED)('refuses the call-log outcome %s as an unknown category', (key) => {
    expect(() => parseCallFilter(new URLSearchParams([['outcome', key]]))).toThrow();
    expect(z.enum(['ok', 'other']).safeParse(key).success).toBe(false);
  });
});
