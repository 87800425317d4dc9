import { describe, expect, it } from 'vitest';
import { pageAmong, searchAny } from '@/lib/admin/numbered-pages';

describe('pageAmong', () => {
  it('shows the requested page when it exists', () => {
    expect(pageAmong(60, 2, 25)).toEqual({ page: 2, pages: 3, skip: 25, take: 25 });
  });

  it('shows the last page for one past it, and the first for nonsense', () => {
    expect(pageAmong(60, 9, 25)).toEqual({ page: 3, pages: 3, skip: 50, take: 25 });
    for (const requested of [0, -3, Number.NaN, 1.9]) expect(pageAmong(60, requested, 25).page).toBe(1);
  });

  it('has one (empty) page when there are no rows', () => {
    expect(pageAmong(0, 4, 25)).toEqual({ page: 1, pages: 1, skip: 0, take: 25 });
  });
});

describe('searchAny', () => {
  it('is no condition for an empty or blank search', () => {
    expect(searchAny('', ['name'])).toEqual({});
    expect(searchAny('   ', ['name', 'email'])).toEqual({});
  });

  it('matches the trimmed text in any of the fields, case-insensitively', () => {
    expect(searchAny(' Ada ', ['name', 'email'])).toEqual({
      OR: [{ name: { contains: 'Ada', mode: 'insensitive' } }, { email: { contains: 'Ada', mode: 'insensitive' } }],
    });
  });
});
