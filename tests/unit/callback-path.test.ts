import { describe, expect, it } from 'vitest';
import { safeCallbackPath } from '@/lib/auth/callback-path';

const ORIGIN = 'https://auth.example.com';

describe('the path to return to after signing in', () => {
  it.each([
    ['/consent/abc?x=1', '/consent/abc?x=1'],
    ['https://auth.example.com/settings#top', '/settings#top'],
    [undefined, '/'],
    ['', '/'],
  ])('keeps a path on this site: %s', (input, expected) => {
    expect(safeCallbackPath(input, ORIGIN)).toBe(expected);
  });

  it.each([
    'https://evil.example/',
    '//evil.example/path',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'http://auth.example.com/', // same host, other scheme
    ' //evil.example',
    '/.//evil.example',
    '/..//evil.example',
    '/%2e//evil.example',
    'https://auth.example.com//evil.example',
  ])('refuses anything that leaves it: %s', (input) => {
    expect(safeCallbackPath(input, ORIGIN)).toBe('/');
  });

  it.each(['x', 'settings', '%zz', 'http://[', '?next=/admin', '#top', 'mailto:someone@auth.example.com'])('takes what is neither a path nor an http(s) URL for nothing: %s', (input) => {
    expect(safeCallbackPath(input, ORIGIN)).toBe('/');
  });
});
