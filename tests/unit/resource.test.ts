// RFC 8707 §2 with RFC 3986 §6: the one rule for the resource indicator, used at the authorization
// request, the consent decision and the token request alike (lib/oauth/resource.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalResource, mcpResource, resourceParameter } from '@/lib/oauth/resource';

beforeAll(() => {
  process.env.PUBLIC_URL = 'https://gatehouse.example';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'gatehouse-resource-'));
});

describe('the resource indicator', () => {
  it('is PUBLIC_URL/mcp', () => {
    expect(mcpResource()).toBe('https://gatehouse.example/mcp');
  });

  it.each(['https://gatehouse.example/mcp', 'HTTPS://GATEHOUSE.EXAMPLE/mcp', 'https://GateHouse.example/mcp', 'https://gatehouse.example:443/mcp'])(
    'canonicalises %s (scheme and host case, default port) to PUBLIC_URL/mcp',
    (spelling) => {
      expect(canonicalResource(spelling)).toBe('https://gatehouse.example/mcp');
    },
  );

  it.each([
    ['a trailing slash', 'https://gatehouse.example/mcp/'],
    ['an empty query', 'https://gatehouse.example/mcp?'],
    ['a query', 'https://gatehouse.example/mcp?a=b'],
    ['a fragment', 'https://gatehouse.example/mcp#x'],
    ['an empty fragment', 'https://gatehouse.example/mcp#'],
    ['dot segments', 'https://gatehouse.example/x/../mcp'],
    ['a single-dot segment', 'https://gatehouse.example/./mcp'],
    ['percent-encoded dots', 'https://gatehouse.example/x/%2e%2e/mcp'],
    ['a percent-encoded path', 'https://gatehouse.example/%6Dcp'],
    ['another path case', 'https://gatehouse.example/MCP'],
    ['a backslash', 'https://gatehouse.example\\mcp'],
    ['userinfo', 'https://user@gatehouse.example/mcp'],
    ['another port', 'https://gatehouse.example:8443/mcp'],
    ['an empty port', 'https://gatehouse.example:/mcp'],
    ['the other scheme', 'http://gatehouse.example/mcp'],
    ['the other scheme’s default port', 'https://gatehouse.example:80/mcp'],
    ['another host', 'https://evil.test/mcp'],
    ['a host that only starts the same', 'https://gatehouse.example.evil.test/mcp'],
    ['surrounding space', ' https://gatehouse.example/mcp'],
    ['a tab inside', 'https://gatehouse.example/m\tcp'],
    ['no scheme', '//gatehouse.example/mcp'],
    ['a relative path', '/mcp'],
    ['nothing', ''],
  ])('refuses %s', (_what, spelling) => {
    expect(canonicalResource(spelling)).toBeNull();
  });

  it('takes repeated parameters only when each names the resource, and reports the first that does not', () => {
    expect(resourceParameter([])).toEqual({ ok: true, resource: null });
    expect(resourceParameter(['HTTPS://gatehouse.example/mcp', 'https://gatehouse.example/mcp'])).toEqual({ ok: true, resource: 'https://gatehouse.example/mcp' });
    expect(resourceParameter(['https://gatehouse.example/mcp', 'https://gatehouse.example/mcp/'])).toEqual({ ok: false, refused: 'https://gatehouse.example/mcp/' });
  });
});
