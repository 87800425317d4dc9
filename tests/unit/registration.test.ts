import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidRegistration } from '@/lib/oauth/errors';
import { normalizeRegistration, sameCredential, sameRedirectTargets } from '@/lib/oauth/registration';
import { PROJECT_ROOT } from '../../lib/cli/standalone';

const fixtures = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json'), 'utf8')) as { client: string; registration_body: Record<string, unknown> }[];

describe('registration normalization', () => {
  it('makes clients with custom schemes or loopback redirects native and drops what is not offered', () => {
    const body = normalizeRegistration({
      redirect_uris: ['cursor://a/cb', 'https://x.example/cb', 'http://127.0.0.1/cb'],
      application_type: 'web',
      grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
      scope: 'claudeai mcp:read',
    });
    expect(body).toMatchObject({ application_type: 'native', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    expect(body).not.toHaveProperty('scope');
  });

  it.each(['jwks_uri', 'sector_identifier_uri', 'request_uris'])('refuses %s, which would make Gatehouse fetch a URL', (field) => {
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], [field]: 'https://attacker.example/x' })).toThrow(InvalidRegistration);
  });

  it.each([
    ['an object whose toString is not a function', { toString: [] }],
    ['an object', { method: 'none' }],
    ['a list', ['none']],
    ['a number', 1],
  ])('refuses a token_endpoint_auth_method that is %s as invalid metadata, never throwing anything else', (_case, value) => {
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], token_endpoint_auth_method: value })).toThrow(expect.objectContaining({ code: 'invalid_client_metadata' }));
  });

  it.each(['https://app.example@evil.example/cb', 'https://user:secret@app.example/cb', 'http://127.0.0.1@evil.example/cb', 'com.example.app://user@cb'])(
    'refuses the redirect URI %s: userinfo makes it read as one host and lead to another',
    (uri) => {
      expect(() => normalizeRegistration({ redirect_uris: [uri] })).toThrow(/user name or password/);
    },
  );

  it.each([
    ['a lone surrogate in a name', { client_name: '\udf36' }],
    ['NUL in a redirect URI', { redirect_uris: ['https://x.example/c\u0000b'] }],
    ['NUL in a nested key', { jwks: { keys: [{ 'k\u0000': 1 }] } }],
  ])('refuses %s, which PostgreSQL cannot store, as invalid metadata', (_case, fields) => {
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], ...fields })).toThrow(expect.objectContaining({ code: 'invalid_client_metadata' }));
  });

  it.each([
    ['a right-to-left override in the name', 'client_name', 'Trusted\u202Eeton'],
    ['a left-to-right embedding in the name', 'client_name', '\u202ANotes'],
    ['a pop directional formatting in the name', 'client_name', 'Notes\u202C'],
    ['a first-strong isolate in the name', 'client_name', 'Notes\u2068x\u2069'],
    ['a right-to-left mark in the name', 'client_name', 'Notes\u200F'],
    ['a left-to-right mark in the name', 'client_name', '\u200ENotes'],
    ['an Arabic letter mark in the name', 'client_name', 'Notes\u061C'],
    ['a zero-width space in the name', 'client_name', 'Trus\u200Bted'],
    ['a zero-width joiner in the name', 'client_name', 'Trus\u200Dted'],
    ['a word joiner in the name', 'client_name', 'Trus\u2060ted'],
    ['a byte-order mark in the name', 'client_name', '\uFEFFTrusted'],
    ['a soft hyphen in the name', 'client_name', 'Trus\u00ADted'],
    ['a tag character in the name', 'client_name', 'Trusted\u{E0041}'],
    ['a newline in the name', 'client_name', 'Trusted\nApp'],
    ['a C1 control in the name', 'client_name', 'Trusted\u0085App'],
    ['a line separator in the name', 'client_name', 'Trusted\u2028App'],
    ['a right-to-left override in client_uri', 'client_uri', 'https://good.test/\u202Eftp'],
    ['a right-to-left override in policy_uri', 'policy_uri', 'https://good.test/\u202Epolicy'],
    ['a right-to-left override in tos_uri', 'tos_uri', 'https://good.test/\u202Etos'],
    ['a right-to-left override in logo_uri', 'logo_uri', 'https://good.test/\u202Elogo.png'],
    ['a zero-width space in software_id', 'software_id', 'notes\u200B'],
    ['a right-to-left override in software_version', 'software_version', '1.0\u202E'],
    ['a right-to-left override in a contact', 'contacts', ['ops@good.test', 'x\u202E@evil.test']],
  ])('refuses client metadata with %s as invalid metadata naming the field', (_what, field, value) => {
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], [field]: value })).toThrow(
      expect.objectContaining({ code: 'invalid_client_metadata', description: expect.stringContaining(field) }),
    );
  });

  it.each([
    ['Hebrew', 'פתקים'],
    ['Arabic', 'ملاحظات'],
    ['mixed scripts', 'Notes ноты 笔记'],
    ['combining accents', 'Cafe\u0301'],
    ['an emoji', 'Notes 📝'],
  ])('accepts a name in %s: only invisible and control characters are refused', (_what, name) => {
    expect(normalizeRegistration({ redirect_uris: ['https://x.example/cb'], client_name: name }).client_name).toBe(name);
  });

  it.each([
    ['a backslash before userinfo', 'https://evil.test\\@good.test/cb'],
    ['backslashes for slashes', 'https:\\\\evil.test\\cb'],
    ['a backslash in a private-use URI', 'com.example.app://evil.test\\@good.test/cb'],
    ['https without slashes', 'https:evil.test/cb'],
    ['http on loopback with one slash', 'http:/127.0.0.1/cb'],
    ['a right-to-left override in the path', 'https://good.test/\u202Ebc/cb'],
    ['a right-to-left override in a private-use URI', 'com.example.app:/\u202Ecb'],
    ['a left-to-right isolate', 'https://good.test/cb\u2066'],
    ['a space', 'https://good.test/c b'],
    ['a host in capitals', 'https://GOOD.test/cb'],
    ['the default port spelled out', 'https://good.test:443/cb'],
    ['a dot segment', 'https://good.test/a/../cb'],
    ['an encoded dot segment', 'cursor://anysphere.cursor-mcp/a/%2e%2e/cb'],
    ['a Unicode host', 'https://bücher.test/cb'],
    ['an IPv4 address in hex', 'http://0x7f.0.0.1/cb'],
    ['a scheme in capitals', 'Com.Example.App:/cb'],
    ['ftp:', 'ftp://files.test/cb'],
    ['ws:', 'ws://127.0.0.1/cb'],
    ['wss:', 'wss://good.test/cb'],
    ['chrome:', 'chrome://settings'],
    ['view-source:', 'view-source:https://good.test/cb'],
    ['intent:', 'intent://cb#Intent;scheme=https;end'],
    ['a single-word scheme no client uses', 'myapp://cb'],
    ['a private-use scheme with nothing after it', 'com.example.app:'],
    ['an empty label in a reverse-domain scheme', 'com..example:/cb'],
  ])('refuses the redirect URI with %s (%s)', (_what, uri) => {
    expect(() => normalizeRegistration({ redirect_uris: [uri] })).toThrow(expect.objectContaining({ code: 'invalid_redirect_uri' }));
  });

  it.each([
    'https://good.test/cb',
    'https://good.test',
    'https://good.test/',
    'https://good.test:8443/cb?app=1',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:8080/',
    'http://[::1]:8080/cb',
    'http://localhost:3118/callback',
    'com.example.app:/oauth2redirect',
    'com.example.app://callback',
    'cursor://anysphere.cursor-mcp/oauth/callback',
  ])('accepts the redirect URI %s, spelled canonically', (uri) => {
    expect(normalizeRegistration({ redirect_uris: [uri] }).redirect_uris).toEqual([uri]);
  });

  it.each(fixtures.map((fixture) => [fixture.client, fixture.registration_body] as const))('accepts what %s sends', (_client, body) => {
    expect(normalizeRegistration(body).redirect_uris).toEqual([...new Set(body.redirect_uris as string[])]);
  });
});

describe('what an RFC 7592 update may change', () => {
  it.each([
    ['a path on the same host', ['https://app.test/cb'], ['https://app.test/oauth/callback']],
    ['a loopback port and path', ['http://127.0.0.1:8080/cb'], ['http://127.0.0.1/other']],
    ['a private-use path', ['com.example.app:/cb'], ['com.example.app://oauth/callback']],
    ['the order and number of URIs on the same hosts', ['https://app.test/a', 'https://app.test/b'], ['https://app.test/c']],
  ])('allows %s', (_what, before, after) => {
    expect(sameRedirectTargets(before, after)).toBe(true);
  });

  it.each([
    ['another host', ['https://app.test/cb'], ['https://evil.test/cb']],
    ['a host added', ['https://app.test/cb'], ['https://app.test/cb', 'https://evil.test/cb']],
    ['a host removed', ['https://app.test/cb', 'https://other.test/cb'], ['https://other.test/cb']],
    ['another port on an https host', ['https://app.test/cb'], ['https://app.test:8443/cb']],
    ['another loopback name', ['http://127.0.0.1:8080/cb'], ['http://localhost:8080/cb']],
    ['http instead of https', ['https://127.0.0.1/cb'], ['http://127.0.0.1/cb']],
    ['another private-use scheme', ['com.example.app:/cb'], ['com.evil.app:/cb']],
  ])('refuses %s', (_what, before, after) => {
    expect(sameRedirectTargets(before, after)).toBe(false);
  });

  it.each([
    ['none', 'client_secret_basic', false],
    ['none', 'client_secret_post', false],
    ['none', 'private_key_jwt', false],
    ['client_secret_basic', 'none', false],
    ['client_secret_post', 'private_key_jwt', false],
    [undefined, 'none', false],
    ['client_secret_basic', 'client_secret_post', true],
    [undefined, 'client_secret_post', true],
    ['private_key_jwt', 'private_key_jwt', true],
    ['none', 'none', true],
  ])('keeps the kind of credential: %s to %s is %s', (before, after, allowed) => {
    expect(sameCredential(before, after)).toBe(allowed);
  });
});
