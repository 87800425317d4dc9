import NextAuth from 'next-auth';
import { authOptions } from '@/lib/auth/options';

export const dynamic = 'force-dynamic';

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options are read on the first request, not at import: the build imports this module too.
async function handler(request: Request, context: RouteContext) {
  return NextAuth(authOptions())(request, { params: await context.params });
}

export { handler as GET, handler as POST };
