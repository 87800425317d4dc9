// Runs before console pages: hands the requested path to the page tree in a request header, because a
// layout cannot see the URL and it is the layout that sends signed-out people to sign in — with the
// page they asked for as the way back.
import { NextResponse, type NextRequest } from 'next/server';

export const REQUEST_PATH_HEADER = 'x-gatehouse-request-path';

export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.next({ request: { headers } });
}

export const config = { matcher: ['/admin/:path*'] };
