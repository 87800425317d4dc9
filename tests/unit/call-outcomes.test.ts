// The console's outcome categories cover every outcome /mcp records, each exactly once, and the SQL
// form used by the overview chart agrees with the TypeScript one.
import { describe, expect, it } from 'vitest';
import { OUTCOME_CATEGORIES, outcomeCategory, outcomeCondition } from '@/lib/audit/call-outcomes';
import { CALL_OUTCOMES, outcomeOfError } from '@/lib/mcp/call-outcome';
import { JSON_RPC, McpError } from '@/lib/mcp/errors';

describe('call outcomes', () => {
  it('puts every outcome in one category', () => {
    for (const outcome of CALL_OUTCOMES) {
      const listed = OUTCOME_CATEGORIES.filter((category) => (category.outcomes as readonly string[]).includes(outcome));
      const category = outcomeCategory(outcome);
      if (category === 'other') expect(listed).toEqual([]);
      else expect(listed.map((entry) => entry.key)).toEqual([category]);
    }
  });

  it('counts the served, refused and HTTP-refused outcomes where the console shows them', () => {
    expect(outcomeCategory('ok')).toBe('ok');
    expect(outcomeCategory('notification')).toBe('ok');
    expect(outcomeCategory('restricted')).toBe('refused_role');
    expect(outcomeCategory('unauthorized')).toBe('unauthorized');
    expect(outcomeCategory('tool_error')).toBe('other');
  });

  it('counts a value it does not know (written by another version) as other, prototype keys included', () => {
    for (const value of ['something_new', 'toString', '__proto__', 'constructor', '']) expect(outcomeCategory(value)).toBe('other');
  });

  it('filters "other" as every outcome no named category holds', () => {
    const named = OUTCOME_CATEGORIES.flatMap((category) => [...category.outcomes]);
    expect(outcomeCondition('other')).toEqual({ outcome: { notIn: named } });
    expect(outcomeCondition('refused_role')).toEqual({ outcome: { in: ['refused_role', 'restricted'] } });
  });

  it.each([
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [429, 'rate_limited'],
    [404, 'method_not_found'],
    [500, 'error'],
    [503, 'unavailable'],
    [400, 'bad_request'],
    [413, 'bad_request'],
    [200, 'jsonrpc_error'],
  ] as const)('names an error answered with HTTP %i %s', (status, outcome) => {
    expect(outcomeOfError(new McpError(JSON_RPC.INVALID_REQUEST, 'x', status))).toBe(outcome);
  });
});
