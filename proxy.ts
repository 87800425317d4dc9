// Runs before pages, for three reasons:
// - server-action requests: checks their size (413 past the limit, before anything buffers more) and their
//   payload before the framework decodes it (lib/server/action-payload.ts says why), so that a forged one
//   gets a 400 instead of failing inside the decoder;
// - every page: a Content-Security-Policy with a fresh script nonce (lib/http/content-security-policy.mjs);
// - console pages: hands the requested path to the page tree in a request header, because a layout cannot
//   see the URL and it is the layout that sends signed-out people to sign in — with the page they asked for
//   as the way back.
import { NextResponse, type NextRequest } from 'next/server';
import { readLimitedBytes } from './lib/http/body';
import { ACTION_BODY_LIMIT_BYTES, ACTION_FORM_FIELD_LIMIT } from './lib/http/body-limits.mjs';
import { newNonce, pageContentSecurityPolicy } from './lib/http/content-security-policy.mjs';
import { CROSS_SITE_ACTION_REFUSAL, isCrossSiteAction, isServerActionRequest } from './lib/server/action-origin';
import { boundArgumentPrefixes, partsFromForm, refuseActionPayload, type PayloadPart, type PayloadRoot } from './lib/server/action-payload';

export const REQUEST_PATH_HEADER = 'x-gatehouse-request-path';

type Refusal = { status: 400 | 413; description: string };

export async function proxy(request: NextRequest) {
  if (request.method === 'POST') {
    if (isServerActionRequest(request.headers) && isCrossSiteAction(request.headers)) return NextResponse.json(CROSS_SITE_ACTION_REFUSAL, { status: 403 });
    const refusal = await refuseServerAction(request);
    if (refusal) return NextResponse.json({ error: 'invalid_request', error_description: refusal.description }, { status: refusal.status });
  }
  // Every page gets its own script nonce: the framework reads it from the request's policy header and
  // puts it on its script tags; the browser gets the same policy on the response.
  const policy = pageContentSecurityPolicy(newNonce());
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', policy);
  if (request.nextUrl.pathname.startsWith('/admin')) headers.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', policy);
  return response;
}

/**
 * The framework treats a POST to a page as a server action when it has a `Next-Action` header (a call from
 * the page's script: JSON text or multipart) or a multipart body (a form submitted before the script
 * loaded, whose bound arguments travel as `$ACTION_<n>:<id>` fields). The proxy reads a clone of the body
 * (the framework buffers at most PROXY_BODY_BUFFER_BYTES of it for this); the page still receives it whole.
 */
async function refuseServerAction(request: NextRequest): Promise<Refusal | null> {
  const contentType = request.headers.get('content-type') ?? '';
  const multipart = contentType.startsWith('multipart/form-data');
  const fetchAction = request.headers.has('next-action');
  if (!fetchAction && !multipart) return null;
  // RFC 9110 §15.5.14: refused by its Content-Length, or as soon as the stream passes the limit. Left to
  // the framework, an oversized call got a 500 (multipart) or an empty 200 (JSON text).
  const bytes = await readLimitedBytes(request, ACTION_BODY_LIMIT_BYTES);
  if (bytes === null) return { status: 413, description: `A server action request may be at most ${ACTION_BODY_LIMIT_BYTES} bytes.` };
  const malformed = (reason: string | null): Refusal | null => (reason === null ? null : { status: 400, description: `Malformed server action request: ${reason}.` });
  if (!multipart) {
    // Decoded as the framework decodes it, keeping a byte-order mark (which then fails JSON.parse there too).
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    return malformed(refuseActionPayload([{ id: 0, text }], { formData: false, root: 'arguments' }));
  }

  let form: FormData;
  try {
    form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
  } catch {
    return malformed('the multipart body cannot be read');
  }
  let fields = 0;
  for (const _ of form.keys()) {
    if (++fields > ACTION_FORM_FIELD_LIMIT) return { status: 413, description: `A server action request may have at most ${ACTION_FORM_FIELD_LIMIT} fields.` };
  }
  const payloads: { prefix: string; formData: boolean; root: PayloadRoot }[] = fetchAction
    ? [{ prefix: '', formData: true, root: 'arguments' }]
    : boundArgumentPrefixes(form).map((prefix) => ({ prefix, formData: false, root: 'descriptor' }));
  for (const { prefix, formData, root } of payloads) {
    const parts: PayloadPart[] | string = partsFromForm(form, prefix);
    const refusal = typeof parts === 'string' ? parts : refuseActionPayload(parts, { formData, root });
    if (refusal) return malformed(refusal);
  }
  return null;
}

// Pages only: route handlers (the OAuth and MCP endpoints, health checks) never decode server actions and
// keep the fixed policy of next.config.mjs, and the proxy costs them nothing. Static files are left out.
export const config = {
  matcher: ['/((?!mcp$|mcp/|oauth/|api/|\\.well-known/|_next/static/|_next/image|favicon\\.ico$|healthz$|readyz$).*)'],
};
