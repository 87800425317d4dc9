// OAuth error responses written by Gatehouse itself (before or after the provider), in the provider's
// JSON shape, never cached.
import { RETRY_AFTER_SECONDS } from '@/lib/db/errors';
import { requestWithBody } from '@/lib/http/body';

export function oauthError(status: number, error: string, description: string, headers: HeadersInit = {}): Response {
  return Response.json(
    { error, error_description: description },
    { status, headers: { 'Cache-Control': 'no-store', ...Object.fromEntries(new Headers(headers)) } },
  );
}

/** 503 temporarily_unavailable with Retry-After: the database (or the provider built on it) is not there yet. */
export function temporarilyUnavailable(description: string): Response {
  return oauthError(503, 'temporarily_unavailable', description, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

/** CORS `*` for endpoints any browser-based client may call (SPEC §2). */
export function withOpenCors(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Expose-Headers', 'WWW-Authenticate, Retry-After');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export function corsPreflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': methods,
      'Access-Control-Allow-Headers': 'Authorization, Content-Type',
      'Access-Control-Max-Age': '600',
    },
  });
}

/** The same request with another body, in memory (the provider re-reads it, maybe inside a transaction). */
export function withBody(request: Request, body: string, contentType: string): Request {
  return requestWithBody(request, body, contentType);
}
