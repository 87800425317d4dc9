import { describe, expect, it } from 'vitest';
import { containsUnstorableText, isStorableText } from '@/lib/db/storable-text';

describe('text PostgreSQL can store', () => {
  it('accepts any well-formed text without NUL, astral characters included', () => {
    expect(isStorableText('Zoë \u{1F600} \u202E \uFEFF')).toBe(true);
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone high surrogate', 'a\uD83D'],
    ['a lone low surrogate', '\uDE00b'],
  ])('refuses %s', (_case, text) => {
    expect(isStorableText(text)).toBe(false);
  });

  it('finds unstorable text in keys and values of any depth without using the stack', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(containsUnstorableText(deep)).toBe(true);
    expect(containsUnstorableText({ ok: [1, 'two', { 'key\uDFFF': null }] })).toBe(true);
    expect(containsUnstorableText({ ok: [1, 'two', { three: null }] })).toBe(false);
  });

  it('ends on values that refer to themselves, as forged server-action arguments can', () => {
    const args: unknown[] = ['acme'];
    args.push(args);
    const object: Record<string, unknown> = { name: 'x' };
    object.self = { again: object };
    expect(containsUnstorableText(args)).toBe(false);
    expect(containsUnstorableText(object)).toBe(false);
    object.bad = 'a\u0000';
    expect(containsUnstorableText(object)).toBe(true);
  });
});
