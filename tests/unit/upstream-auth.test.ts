// How long Gatehouse keeps an upstream's access token (lib/connectors/upstream-auth.ts tokenUsableUntil):
// its lifetime less a margin of 10 % of it, at least 5 s; a bounded default when the answer gave no
// expires_in (RFC 6749 §5.1 only recommends it), and never past a day. And the checks of the client
// credentials an admin gives (lib/connectors/client-credentials.ts): token URL, client id and secret, the
// scope syntax of RFC 6749 §3.3, the resource of RFC 8707 §2, the client authentication — with refusals
// that never quote the secret.
import { describe, expect, it } from 'vitest';
import { checkClientCredentials, type ClientCredentialsInput } from '@/lib/connectors/client-credentials';
import { ConnectorError } from '@/lib/connectors/errors';
import { DEFAULT_TOKEN_LIFETIME_SECONDS, MAX_TOKEN_LIFETIME_SECONDS, tokenUsableUntil } from '@/lib/connectors/upstream-auth';

const T0 = 1_700_000_000_000;
const usableFor = (expiresIn: number | undefined) => (tokenUsableUntil(T0, expiresIn) - T0) / 1000;

describe('how long an upstream access token is used', () => {
  it('stops 10 % of its lifetime before it expires when that is more than 5 s', () => {
    expect(usableFor(3600)).toBe(3240);
    expect(usableFor(300)).toBe(270);
    expect(usableFor(100)).toBe(90);
  });

  it('stops at least 5 s before it expires', () => {
    expect(usableFor(50)).toBe(45);
    expect(usableFor(30)).toBe(25);
    expect(usableFor(8)).toBe(3);
    expect(usableFor(5)).toBe(0);
  });

  it('is not kept at all when it lives less than the margin (only the calls that waited for it use it)', () => {
    expect(usableFor(3)).toBe(0);
    expect(usableFor(0)).toBe(0);
  });

  it('uses a token without expires_in for a bounded default, less the margin', () => {
    expect(DEFAULT_TOKEN_LIFETIME_SECONDS).toBe(300);
    expect(usableFor(undefined)).toBe(270);
    expect(usableFor(Number.NaN)).toBe(270);
    expect(usableFor(-1)).toBe(270);
  });

  it('keeps no token longer than a day, whatever expires_in says', () => {
    expect(MAX_TOKEN_LIFETIME_SECONDS).toBe(86_400);
    expect(usableFor(10 * 365 * 86_400)).toBe(86_400 * 0.9);
    expect(usableFor(Number.POSITIVE_INFINITY)).toBe(270);
  });
});

const SECRET = 'unit-test-client-secret-3f9a';
const valid: ClientCredentialsInput = { tokenUrl: 'https://auth.internal/oauth/token', clientId: 'gatehouse', clientSecret: SECRET };

function refusal(input: Partial<ClientCredentialsInput>): string {
  try {
    checkClientCredentials({ ...valid, ...input });
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as Error).message).not.toContain(SECRET);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

describe('the client credentials an admin gives', () => {
  it('are taken trimmed, with client_secret_basic by default, and the short names of the methods', () => {
    expect(checkClientCredentials({ ...valid, tokenUrl: ' https://auth.internal/oauth/token ', scope: ' notes:read notes:write ' })).toEqual({
      tokenUrl: 'https://auth.internal/oauth/token',
      clientId: 'gatehouse',
      clientSecret: SECRET,
      clientAuth: 'client_secret_basic',
      scope: 'notes:read notes:write',
      resource: null,
    });
    expect(checkClientCredentials({ ...valid, clientAuth: 'post' }).clientAuth).toBe('client_secret_post');
    expect(checkClientCredentials({ ...valid, clientAuth: 'client_secret_post' }).clientAuth).toBe('client_secret_post');
    expect(checkClientCredentials({ ...valid, clientAuth: 'basic' }).clientAuth).toBe('client_secret_basic');
    expect(checkClientCredentials({ ...valid, resource: 'https://notes.internal/mcp', scope: '' })).toMatchObject({ resource: 'https://notes.internal/mcp', scope: null });
    expect(checkClientCredentials({ ...valid, tokenUrl: 'http://127.0.0.1:9000/token?tenant=a' }).tokenUrl).toBe('http://127.0.0.1:9000/token?tenant=a');
    // A secret read from standard input keeps everything but its line end.
    expect(checkClientCredentials({ ...valid, clientSecret: ` ${SECRET}\n` }).clientSecret).toBe(` ${SECRET}`);
  });

  it('refuse a token URL that is not absolute http(s), or that carries a user, a password or a fragment', () => {
    expect(refusal({ tokenUrl: '/oauth/token' })).toMatch(/absolute http/);
    expect(refusal({ tokenUrl: 'ftp://auth.internal/token' })).toMatch(/absolute http/);
    expect(refusal({ tokenUrl: 'javascript:alert(1)' })).toMatch(/absolute http/);
    expect(refusal({ tokenUrl: 'https://auth.internal/to ken' })).toMatch(/absolute http/);
    expect(refusal({ tokenUrl: 'https://gatehouse:pw@auth.internal/token' })).toMatch(/user name or password/);
    expect(refusal({ tokenUrl: 'https://auth.internal/token#x' })).toMatch(/fragment/);
    expect(refusal({ tokenUrl: 'https://auth.internal/token#' })).toMatch(/fragment/);
    expect(refusal({ tokenUrl: `https://auth.internal/${'a'.repeat(2048)}` })).toMatch(/2048/);
  });

  it('refuse a client id or secret that is empty, too long or not printable ASCII, without quoting the secret', () => {
    expect(refusal({ clientId: '  ' })).toMatch(/client id/);
    expect(refusal({ clientId: 'a'.repeat(256) })).toMatch(/client id/);
    expect(refusal({ clientId: 'gate\nhouse' })).toMatch(/client id/);
    expect(refusal({ clientSecret: '' })).toMatch(/client secret/);
    expect(refusal({ clientSecret: `${SECRET}\u0000` })).toMatch(/client secret/);
    expect(refusal({ clientSecret: `${SECRET}\r\nX-Injected: 1` })).toMatch(/client secret/);
    expect(refusal({ clientSecret: `${SECRET}é` })).toMatch(/client secret/);
    expect(refusal({ clientSecret: SECRET.repeat(100) })).toMatch(/client secret/);
  });

  it('refuse a scope that is not scope tokens separated by single spaces (RFC 6749 §3.3)', () => {
    for (const scope of ['notes:read  notes:write', 'notes:"read"', 'notes\\read', 'notes:read\tnotes:write', 'noté', 'a'.repeat(1025)]) {
      expect(refusal({ scope })).toMatch(/scope/);
    }
    expect(checkClientCredentials({ ...valid, scope: "notes:read https://api.example/x.read !#$%&'()*+,-./:;<=>?@[]^_`{|}~" }).scope).toContain('notes:read');
  });

  it('refuse a resource that is not an absolute URI, or has a fragment (RFC 8707 §2)', () => {
    expect(refusal({ resource: 'notes' })).toMatch(/absolute URI/);
    expect(refusal({ resource: 'https://notes.internal/mcp#x' })).toMatch(/fragment/);
    expect(refusal({ resource: 'https://notes.internal/m cp' })).toMatch(/absolute URI/);
    expect(checkClientCredentials({ ...valid, resource: 'urn:notes:api' }).resource).toBe('urn:notes:api');
  });

  it('refuse an unknown client authentication method, naming what is allowed', () => {
    expect(refusal({ clientAuth: 'private_key_jwt' as never })).toMatch(/"basic".*"post"/);
  });
});
