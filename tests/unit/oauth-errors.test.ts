// Gatehouse's own OAuth refusals are typed values rendered in one place (lib/oauth/errors.ts, in the catch
// of lib/oauth/handle-request.ts): one JSON shape, never cached, and on /oauth/register the CORS headers
// of its successful answers. A refused consent form is an HTML page instead (lib/oauth/consent-errors.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/lib/db/client';
import { parseEnv } from '@/lib/env';
import { consentErrorPage } from '@/lib/oauth/consent-errors';
import { withOpenCors } from '@/lib/oauth/endpoints/responses';
import { InvalidRedirectUri, InvalidRegistration, PayloadTooLarge, renderOAuthError, TooManyRequests } from '@/lib/oauth/errors';
import { handleOAuthRequest } from '@/lib/oauth/handle-request';
import { normalizeRegistration } from '@/lib/oauth/registration';
import { forgetProcessSingleton, replaceProcessSingleton } from '@/lib/server/process-singleton';

const CORS_HEADERS = ['access-control-allow-origin', 'access-control-expose-headers'];

afterEach(async () => {
  await closeDatabase();
  forgetProcessSingleton('env');
  forgetProcessSingleton('provider');
});

describe('OAuth errors', () => {
  it('render as RFC 6749 §5.2 JSON, never cached, with their own headers', async () => {
    const response = renderOAuthError(new TooManyRequests('slow down', 7), { openCors: false });
    expect(response.status).toBe(429);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await response.json()).toEqual({ error: 'too_many_requests', error_description: 'slow down' });
  });

  it('carry, where asked, exactly the CORS headers of a successful registration', () => {
    const refused = renderOAuthError(new PayloadTooLarge('invalid_client_metadata', 'too big'), { openCors: true });
    const succeeded = withOpenCors(Response.json({ client_id: 'x' }, { status: 201 }));
    for (const name of CORS_HEADERS) expect(refused.headers.get(name), name).toBe(succeeded.headers.get(name));
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('are what registration metadata is refused with (RFC 7591 §3.2.2)', () => {
    expect(() => normalizeRegistration({ redirect_uris: [] })).toThrow(InvalidRedirectUri);
    expect(() => normalizeRegistration([])).toThrow(InvalidRegistration);
  });
});

describe('the request wrapper', () => {
  const configure = () => replaceProcessSingleton('env', parseEnv({ DATABASE_URL: 'postgresql://127.0.0.1:1/unreachable', AUTH_SECRET: 'x'.repeat(40), PUBLIC_URL: 'https://auth.example.com' }));

  it('answers a registration body past the limit with 413 invalid_client_metadata and CORS, before anything else', async () => {
    configure();
    const response = await handleOAuthRequest(new Request('https://auth.example.com/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(65 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('answers a registration while the database is unreachable with 503, Retry-After and CORS; the token endpoint without CORS', async () => {
    configure();
    const register = await handleOAuthRequest(new Request('https://auth.example.com/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(register.status).toBe(503);
    expect(register.headers.get('retry-after')).not.toBeNull();
    expect(register.headers.get('access-control-allow-origin')).toBe('*');
    expect(await register.json()).toMatchObject({ error: 'temporarily_unavailable' });
    const token = await handleOAuthRequest(
      new Request('https://auth.example.com/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=x' }),
    );
    expect(token.status).toBe(503);
    expect(token.headers.get('access-control-allow-origin')).toBeNull();
  }, 30_000);
});

describe('a refused consent form', () => {
  it('is a small HTML page with the status, its message escaped', async () => {
    const response = consentErrorPage(403, 'Start again from <the app>.');
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<!doctype html>');
    expect(html).toContain('Start again from &#60;the app&#62;.');
  });
});
