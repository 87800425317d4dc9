import type { NextRequest } from 'next/server';
import { runNextAuth } from '@/lib/auth/next-auth-request';
import { guardAuthRequest } from '@/lib/auth/route-guard';
import { endProviderSession } from '@/lib/oauth/sessions';

export const dynamic = 'force-dynamic';

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options are read on the first request, not at import: the build imports this module too.
async function handler(incoming: NextRequest, context: RouteContext) {
  const params = await context.params;
  // Bodies and parameters next-auth would answer badly are refused first (route-guard.ts); callback URLs
  // that are not Gatehouse's to follow are cleaned on the way in (next-auth-request.ts).
  const request = await guardAuthRequest(incoming, params.nextauth);
  if (request instanceof Response) return request;
  const response = await runNextAuth(request, params.nextauth);
  if (request.method !== 'POST' || params.nextauth.join('/') !== 'signout') return response;
  // Signing out of Gatehouse also ends the OAuth provider's session in this browser.
  const cleared = await endProviderSession(request);
  if (cleared.length === 0) return response;
  const headers = new Headers(response.headers);
  for (const cookie of cleared) headers.append('Set-Cookie', cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export { handler as GET, handler as POST };
