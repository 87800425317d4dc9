// What Gatehouse's own OAuth endpoint steps add to answers: CORS, preflights, a request with another
// body. Their errors are typed values (../errors.ts), rendered in handle-request.ts.
import { requestWithBody } from '@/lib/http/body';

/** CORS `*` for endpoints any browser-based client may call (docs/protocol.md §2). */
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
