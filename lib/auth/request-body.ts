// next-auth reads a POST body whole, with no limit, and parses it (a form into an object, JSON with
// JSON.parse) before it checks anything, CSRF token included: a 14 MB form of 1.5 million keys once ran
// the server out of memory. Every body to /api/auth/* is read here first, within limits no form of
// Gatehouse's comes near (sign-in: CSRF token, email, password, callback path, two flags), and handed on
// as a request whose body is those bytes.
import { NextRequest } from 'next/server';
import { readBoundedBody, type BodyLimits } from '@/lib/http/body';

export const AUTH_BODY_LIMITS: BodyLimits = { bytes: 16 * 1024, fields: 32 };

/** The request with its body read within AUTH_BODY_LIMITS, or the refusal to answer with. */
export async function boundedAuthRequest(request: NextRequest): Promise<NextRequest | Response> {
  if (request.method !== 'POST') return request; // next-auth reads no other method's body
  const body = await readBoundedBody(request, AUTH_BODY_LIMITS);
  if (!body.ok) {
    return Response.json({ error: 'invalid_request', error_description: body.description }, { status: body.status, headers: { 'Cache-Control': 'no-store' } });
  }
  return new NextRequest(request.url, { method: request.method, headers: request.headers, body: new Uint8Array(body.bytes) });
}
