// docs/protocol.md §2: the documents that let any MCP client find Gatehouse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ database: 'embedded' });
});
afterAll(async () => server?.stop());

describe('discovery', () => {
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])('serves RFC 9728 protected-resource metadata at %s', async (path) => {
    const response = await fetch(`${server.url}${path}`, { headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      resource: `${server.url}/mcp`,
      authorization_servers: [server.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read', 'mcp:write'],
      resource_name: 'Gatehouse MCP',
    });
  });

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])('serves authorization-server metadata at %s with every field MCP clients need', async (path) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.url,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      introspection_endpoint: `${server.url}/oauth/introspect`,
      jwks_uri: `${server.url}/oauth/jwks`,
    });
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(metadata.token_endpoint_auth_methods_supported).not.toContain('client_secret_jwt');
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    expect(JSON.stringify(metadata.token_endpoint_auth_signing_alg_values_supported)).not.toMatch(/HS/);
    // Only what works end to end: /mcp takes Bearer tokens only (no DPoP, no mTLS binding); pushed or
    // signed authorization requests are not offered; access tokens are for /mcp alone, so there is no
    // userinfo endpoint that could accept one.
    for (const field of [
      'userinfo_endpoint',
      'dpop_signing_alg_values_supported',
      'tls_client_certificate_bound_access_tokens',
      'pushed_authorization_request_endpoint',
      'require_pushed_authorization_requests',
      'request_object_signing_alg_values_supported',
      'request_parameter_supported',
      'request_uri_parameter_supported',
      'end_session_endpoint',
    ]) {
      expect([undefined, false], field).toContain(metadata[field]);
    }
    // Nothing points outside /oauth/*.
    for (const [field, value] of Object.entries(metadata)) {
      if (field.endsWith('_endpoint') || field === 'jwks_uri') expect(String(value)).toMatch(new RegExp(`^${server.url}/oauth/`));
    }
  });

  it('answers CORS preflights on token, registration and revocation with any origin', async () => {
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      expect(response.status, path).toBeLessThan(300);
      expect(['*', 'https://app.example'], path).toContain(response.headers.get('access-control-allow-origin'));
    }
  });
});

describe('discovery with CIMD=off', () => {
  it('stops advertising Client ID Metadata Documents', async () => {
    const off = await startServer({ database: 'embedded', env: { CIMD: 'off' } });
    try {
      const metadata = (await (await fetch(`${off.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.client_id_metadata_document_supported).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});
