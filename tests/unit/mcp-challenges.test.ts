// WWW-Authenticate challenges for /mcp (lib/mcp/challenges.ts; RFC 6750 §3, RFC 9728 §5.1): the
// resource metadata URL, the scope, and a description that stays a valid header value.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearerChallenge, insufficientScopeChallenge, resourceMetadataUrl } from '@/lib/mcp/challenges';

beforeAll(() => {
  process.env.PUBLIC_URL = 'https://gatehouse.example';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'gatehouse-challenges-'));
});

const METADATA = 'resource_metadata="https://gatehouse.example/.well-known/oauth-protected-resource"';

describe('WWW-Authenticate challenges', () => {
  it('point at the protected resource metadata (RFC 9728 §5.1)', () => {
    expect(resourceMetadataUrl()).toBe('https://gatehouse.example/.well-known/oauth-protected-resource');
  });

  it('offer both MCP scopes when no scope is named (the discovery challenge for a missing token)', () => {
    expect(bearerChallenge({})).toBe(`Bearer ${METADATA}, scope="mcp:read mcp:write"`);
  });

  it('carry the error and its description (RFC 6750 §3)', () => {
    expect(bearerChallenge({ error: 'invalid_token', description: 'The access token is invalid or expired.' })).toBe(
      `Bearer ${METADATA}, scope="mcp:read mcp:write", error="invalid_token", error_description="The access token is invalid or expired."`,
    );
  });

  it('name the one scope the step-up needs (insufficient_scope)', () => {
    expect(insufficientScopeChallenge('mcp:write')).toBe(`Bearer ${METADATA}, scope="mcp:write", error="insufficient_scope"`);
  });

  it.each([
    ['quotes and backslashes', 'You are no longer a member of "Acme \\ Co".', 'You are no longer a member of Acme  Co.'],
    ['non-Latin letters', 'Вы больше не участник Acme.', '    Acme.'],
    ['line breaks (no header injection)', 'x\r\nSet-Cookie: a=b', 'xSet-Cookie: a=b'],
    ['a NUL and a tab', 'a\u0000b\tc', 'abc'],
  ])('drop %s from the description, so the header stays printable ASCII (RFC 9110 §5.5)', (_what, description, kept) => {
    const challenge = bearerChallenge({ error: 'invalid_token', description });
    expect(challenge).toMatch(/^[\x20-\x7e]*$/);
    expect(challenge.endsWith(`error_description="${kept}"`)).toBe(true);
    expect(() => new Headers({ 'WWW-Authenticate': challenge })).not.toThrow();
  });

  it('leave out an empty description', () => {
    expect(bearerChallenge({ error: 'invalid_token', description: '' })).toBe(`Bearer ${METADATA}, scope="mcp:read mcp:write", error="invalid_token"`);
  });
});
