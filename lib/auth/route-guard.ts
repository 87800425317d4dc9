// What /api/auth/* refuses before next-auth sees the request, because next-auth would answer it badly:
// - bodies: next-auth reads a POST body whole, with no limit, and parses it (a form into an object, JSON
//   with JSON.parse) before it checks anything, CSRF token included — a 14 MB form of 1.5 million keys
//   once ran the server out of memory. Every body is read here first, within limits no form of
//   Gatehouse's comes near (sign-in: CSRF token, email, password, callback path, two flags), and handed
//   on as a request whose body is those bytes; JSON that does not parse is a 400, not next-auth's 500,
//   and so is JSON whose fields are not strings (next-auth reads `callbackUrl`, `csrfToken` and the
//   credentials as strings, as forms carry them: a number there was a TypeError, a 500), except the
//   session update's `data`, which is the application's own;
// - the credentials callback takes only POST: next-auth answers any other method with a 500;
// - the error page's code: next-auth copies it unencoded into its redirect's Location, so a NUL or a line
//   break there (`/api/auth/error/%00`) made the header invalid and the answer a 500. Its codes are words;
//   anything else becomes `Default`, next-auth's code for an error it does not know.
import { NextRequest } from 'next/server';
import { readBoundedBody, type BodyLimits } from '@/lib/http/body';

export const AUTH_BODY_LIMITS: BodyLimits = { bytes: 16 * 1024, fields: 32 };

/** The request to hand to next-auth (its body read within AUTH_BODY_LIMITS), or the refusal to answer with. */
export async function guardAuthRequest(request: NextRequest, action: string[]): Promise<NextRequest | Response> {
  if (action[0] === 'callback' && action[1] === 'credentials' && request.method !== 'POST') {
    return refusal(405, 'The credentials callback takes only POST.', { Allow: 'POST' });
  }
  if (request.method === 'GET' && action[0] === 'error') return withPlainErrorCode(request, action);
  if (request.method !== 'POST') return request; // next-auth reads no other method's body
  const body = await readBoundedBody(request, AUTH_BODY_LIMITS);
  if (!body.ok) return refusal(body.status, body.description);
  if (body.json && Object.entries(body.json).some(([name, value]) => name !== 'data' && typeof value !== 'string')) {
    return refusal(400, 'The fields of a JSON body must be strings.');
  }
  return new NextRequest(request.url, { method: request.method, headers: request.headers, body: new Uint8Array(body.bytes) });
}

const ERROR_CODE = /^[A-Za-z]{1,64}$/;

function withPlainErrorCode(request: NextRequest, action: string[]): NextRequest {
  // next-auth takes the code from the query, else from the path (`/api/auth/error/<code>`).
  const code = request.nextUrl.searchParams.get('error') ?? action[1];
  if (code === undefined || ERROR_CODE.test(code)) return request;
  const url = new URL(request.url);
  url.searchParams.set('error', 'Default');
  return new NextRequest(url, { method: request.method, headers: request.headers });
}

function refusal(status: number, description: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: 'invalid_request', error_description: description }, { status, headers: { 'Cache-Control': 'no-store', ...headers } });
}
