// The pure parts of the console's log exports and filters: CSV fields by RFC 4180 with the formula guard,
// date ranges, and keyset pages.
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord, jsonLine } from '@/lib/admin/log-export';
import { pageByKeyset, parseDay, timeRange, type IdRange } from '@/lib/audit/log-filter';

describe('CSV fields', () => {
  it('makes cells that a spreadsheet would run as a formula into text', () => {
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\tcmd', '\rcmd']) expect(csvField(value)).toMatch(/^"?'/);
    expect(csvField('=HYPERLINK("https://evil.example")')).toBe(`"'=HYPERLINK(""https://evil.example"")"`);
    expect(csvField('safe = fine')).toBe('safe = fine');
  });

  it('quotes fields with commas, quotes or line breaks, doubling quotes (RFC 4180 §2)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(42)).toBe('42');
    expect(csvField({ scopes: ['mcp:read'] })).toBe('"{""scopes"":[""mcp:read""]}"');
    expect(csvRecord(['a', 'b,c'])).toBe('a,"b,c"\r\n');
  });

  it('writes JSON Lines as one object per line', () => {
    expect(jsonLine({ text: 'two\nlines' })).toBe('{"text":"two\\nlines"}\n');
  });
});

describe('date ranges', () => {
  it('reads whole UTC days and refuses dates that do not exist', () => {
    expect(parseDay('2026-11-30')?.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(parseDay('2026-02-30')).toBeNull();
    expect(parseDay('30/11/2026')).toBeNull();
  });

  it('includes the whole "to" day and bounds the span', () => {
    expect(timeRange('2026-11-01', '2026-11-30')).toEqual({ gte: new Date('2026-11-01T00:00:00Z'), lt: new Date('2026-12-01T00:00:00Z') });
    expect(timeRange(undefined, undefined)).toBeUndefined();
    expect(() => timeRange('2026-11-30', '2026-11-01')).toThrow(/on or before/);
    expect(() => timeRange('2024-01-01', '2026-01-01')).toThrow(/at most 366 days/);
  });
});

describe('keyset pages', () => {
  const ids = Array.from({ length: 120 }, (_, index) => BigInt(index + 1));
  const read = async (range: IdRange, order: 'asc' | 'desc', take: number) =>
    ids
      .filter((id) => (range.lt === undefined || id < range.lt) && (range.gt === undefined || id > range.gt))
      .sort((a, b) => (order === 'asc' ? Number(a - b) : Number(b - a)))
      .slice(0, take)
      .map((id) => ({ id }));

  it('walks newest to oldest with Older, and back with Newer', async () => {
    const first = await pageByKeyset({}, read);
    expect(first.rows.map(({ id }) => Number(id))).toEqual(Array.from({ length: 50 }, (_, index) => 120 - index));
    expect(first).toMatchObject({ newer: null, older: '71' });
    const second = await pageByKeyset({ before: first.older! }, read);
    expect(second).toMatchObject({ newer: '70', older: '21' });
    const last = await pageByKeyset({ before: second.older! }, read);
    expect(last.rows).toHaveLength(20);
    expect(last).toMatchObject({ newer: '20', older: null });
    const back = await pageByKeyset({ after: last.newer! }, read);
    expect(back.rows.map(({ id }) => id)).toEqual(second.rows.map(({ id }) => id));
    expect(back).toMatchObject({ newer: '70', older: '21' });
  });
});
