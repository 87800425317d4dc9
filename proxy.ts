// Runs before pages, for two reasons:
// - console pages: hands the requested path to the page tree in a request header, because a layout cannot
//   see the URL and it is the layout that sends signed-out people to sign in — with the page they asked for
//   as the way back;
// - server-action requests: checks their payload before the framework decodes it (lib/server/action-payload.ts
//   says why), so that a forged one gets a 400 instead of failing inside the decoder.
import { NextResponse, type NextRequest } from 'next/server';
import { boundArgumentPrefixes, partsFromForm, refuseActionPayload, type PayloadPart, type PayloadRoot } from './lib/server/action-payload';

export const REQUEST_PATH_HEADER = 'x-gatehouse-request-path';
/** The framework's default `serverActions.bodySizeLimit`, which Gatehouse keeps. */
const ACTION_BODY_LIMIT_BYTES = 1024 * 1024;

export async function proxy(request: NextRequest) {
  if (request.method === 'POST') {
    const refusal = await refuseServerAction(request);
    if (refusal) {
      return NextResponse.json({ error: 'invalid_request', error_description: `Malformed server action request: ${refusal}.` }, { status: 400 });
    }
  }
  if (!request.nextUrl.pathname.startsWith('/admin')) return NextResponse.next();
  const headers = new Headers(request.headers);
  headers.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.next({ request: { headers } });
}

/**
 * The framework treats a POST to a page as a server action when it has a `Next-Action` header (a call from
 * the page's script: JSON text or multipart) or a multipart body (a form submitted before the script
 * loaded, whose bound arguments travel as `$ACTION_<n>:<id>` fields). The proxy reads a clone of the body;
 * the page still receives it whole.
 */
async function refuseServerAction(request: NextRequest): Promise<string | null> {
  // Bodies past the framework's own action limit get its 413 without being read here.
  if (Number(request.headers.get('content-length') ?? 0) > ACTION_BODY_LIMIT_BYTES) return null;
  const contentType = request.headers.get('content-type') ?? '';
  const multipart = contentType.startsWith('multipart/form-data');
  const fetchAction = request.headers.has('next-action');
  if (!fetchAction && !multipart) return null;
  if (!multipart) {
    // Decoded as the framework decodes it, keeping a byte-order mark (which then fails JSON.parse there too).
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await request.arrayBuffer());
    return refuseActionPayload([{ id: 0, text }], { formData: false, root: 'arguments' });
  }

  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return 'the multipart body cannot be read';
  }
  const payloads: { prefix: string; formData: boolean; root: PayloadRoot }[] = fetchAction
    ? [{ prefix: '', formData: true, root: 'arguments' }]
    : boundArgumentPrefixes(form).map((prefix) => ({ prefix, formData: false, root: 'descriptor' }));
  for (const { prefix, formData, root } of payloads) {
    const parts: PayloadPart[] | string = partsFromForm(form, prefix);
    const refusal = typeof parts === 'string' ? parts : refuseActionPayload(parts, { formData, root });
    if (refusal) return refusal;
  }
  return null;
}

// Route handlers (the OAuth and MCP endpoints, health checks, exports) never decode server actions, so the
// action check is limited to page paths, and only to requests that could be one. (The framework reads this
// object at build time, so the page pattern is written out twice.)
export const config = {
  matcher: [
    '/admin/:path*',
    {
      source: '/((?!mcp$|mcp/|oauth/|api/|\\.well-known/|_next/|healthz$|readyz$).*)',
      has: [{ type: 'header', key: 'next-action' }],
    },
    {
      source: '/((?!mcp$|mcp/|oauth/|api/|\\.well-known/|_next/|healthz$|readyz$).*)',
      has: [{ type: 'header', key: 'content-type', value: 'multipart/form-data.*' }],
    },
  ],
};
