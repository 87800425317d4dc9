import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptions } from '@/lib/auth/options';
import { guardAuthRequest } from '@/lib/auth/route-guard';
import { endProviderSession } from '@/lib/oauth/sessions';

export const dynamic = 'force-dynamic';

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options are read on the first request, not at import: the build imports this module too.
async function handler(incoming: NextRequest, context: RouteContext) {
  const params = await context.params;
  const request = await guardAuthRequest(incoming, params.nextauth);
  if (request instanceof Response) return request;
  const response: Response = await NextAuth(authOptions())(request, { params });
  if (request.method !== 'POST' || params.nextauth.join('/') !== 'signout') return response;
  // Signing out of Gatehouse also ends the OAuth provider's session in this browser.
  const cleared = await endProviderSession(request);
  if (cleared.length === 0) return response;
  const headers = new Headers(response.headers);
  for (const cookie of cleared) headers.append('Set-Cookie', cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export { handler as GET, handler as POST };
