import { describe, expect, it } from 'vitest';
import { normalizeRegistration, RegistrationError } from '@/lib/oauth/registration';

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
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], [field]: 'https://attacker.example/x' })).toThrow(RegistrationError);
  });

  it.each([
    ['an object whose toString is not a function', { toString: [] }],
    ['an object', { method: 'none' }],
    ['a list', ['none']],
    ['a number', 1],
  ])('refuses a token_endpoint_auth_method that is %s as invalid metadata, never throwing anything else', (_case, value) => {
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], token_endpoint_auth_method: value })).toThrow(
      expect.objectContaining({ code: 'invalid_client_metadata' }),
    );
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
    expect(() => normalizeRegistration({ redirect_uris: ['https://x.example/cb'], ...fields })).toThrow(
      expect.objectContaining({ code: 'invalid_client_metadata' }),
    );
  });
});
