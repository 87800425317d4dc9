// The argument types tools share refuse what the database cannot use as a validation issue, never by
// throwing: a throw inside a schema is a 500 for the caller's mistake.
import { describe, expect, it } from 'vitest';
import { instant, pageCursor } from '@/lib/mcp/tools/arguments';

describe('pageCursor', () => {
  it.each(['1', '10', '9223372036854775807'])('takes %s', (value) => {
    expect(pageCursor().safeParse(value).success).toBe(true);
  });

  it.each(['', '-1', '1.5', ' 1', '0x10', '9223372036854775808', '99999999999999999999', '􅹭󬼼򇼖𝜽', '1\u0000', '١٢'])('refuses %j without throwing', (value) => {
    const result = pageCursor().safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be the nextCursor of a previous page');
  });
});

describe('instant', () => {
  it('takes an ISO 8601 time with its offset', () => {
    expect(instant().safeParse('2026-01-01T00:00:00Z').success).toBe(true);
    expect(instant().safeParse('2026-01-01T00:00:00+02:00').success).toBe(true);
  });

  it.each(['', 'yesterday', '2026-01-01', '0000-01-01T00:00:00Z', '2026-13-01T00:00:00Z'])('refuses %j without throwing', (value) => {
    expect(instant().safeParse(value).success).toBe(false);
  });
});
