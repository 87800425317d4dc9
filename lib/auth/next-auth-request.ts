// What next-auth reads of a request, cleaned of callback URLs that are not Gatehouse's to follow.
//
// next-auth keeps where to go after signing in in a cookie (`next-auth.callback-url`, `__Secure-…` behind
// https) and takes it from a `callbackUrl` query or body parameter. Before any of its routes runs — and
// before `getServerSession` reads a session — it checks the cookie and the query parameter and, when one
// does not parse as an http(s) URL, answers 500 ("InvalidCallbackUrl"). A sibling subdomain can plant
// such a cookie (RFC 6265 §8.6), so any page that reads the session would fail for that browser: a
// lockout. Here both are replaced by their safe path on this site (`safeCallbackPath`) before next-auth
// sees them; the body parameter goes to the `redirect` callback, which applies the same rule.
import NextAuth from 'next-auth';
import { env } from '@/lib/env';
import { safeCallbackPath } from './callback-path';
import { authOptions } from './options';

/** The names next-auth gives its callback-URL cookie, with and without the https prefix. */
const CALLBACK_COOKIES = new Set(['next-auth.callback-url', '__Secure-next-auth.callback-url']);

/** A Cookie header as the framework reads it: values URL-decoded, undecodable ones skipped, the last of a name wins. */
export function parseCookieHeader(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(/; */)) {
    if (!pair) continue;
    const index = pair.indexOf('=');
    if (index === -1) continue;
    try {
      cookies.set(pair.slice(0, index), decodeURIComponent(pair.slice(index + 1)));
    } catch {
      // a value only someone else could have written: ignored
    }
  }
  return cookies;
}

/** The request's cookies for next-auth, with a callback-URL cookie turned into its safe path. */
export function cookiesForNextAuth(cookies: Map<string, string>): Record<string, string> {
  const { publicUrl } = env();
  const cleaned = new Map(cookies);
  for (const name of CALLBACK_COOKIES) {
    const value = cleaned.get(name);
    if (value !== undefined) cleaned.set(name, safeCallbackPath(value, publicUrl));
  }
  return Object.fromEntries(cleaned);
}

/** What next-auth's (req, res) handler writes, collected into a Web Response. */
class CollectedResponse {
  statusCode = 200;
  readonly headers = new Headers();
  body: BodyInit | null = null;

  status(code: number) {
    this.statusCode = code;
    return this;
  }
  getHeader(name: string): string[] | string | undefined {
    if (name.toLowerCase() === 'set-cookie') return this.headers.getSetCookie();
    return this.headers.get(name) ?? undefined;
  }
  setHeader(name: string, value: string | string[]) {
    this.headers.delete(name);
    for (const item of Array.isArray(value) ? value : [value]) this.headers.append(name, item);
    return this;
  }
  json(value: unknown) {
    this.headers.set('Content-Type', 'application/json');
    this.body = JSON.stringify(value);
  }
  send(value: unknown) {
    if (value === undefined || value === null) return;
    if (typeof value === 'string') this.body = value;
    else this.json(value);
  }
  end() {}

  toResponse(): Response {
    return new Response(this.body, { status: this.statusCode, headers: this.headers });
  }
}

/** The body as next-auth reads it: JSON or a form, on POST only. */
async function authBody(request: Request): Promise<Record<string, unknown> | undefined> {
  if (request.method !== 'POST' || !request.body) return undefined;
  const contentType = request.headers.get('content-type') ?? '';
  const text = await request.text();
  if (contentType.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return undefined;
}

/**
 * Runs next-auth's route `action` (`['callback', 'credentials']`, `['session']`…) for a route handler's
 * request, through next-auth's own (req, res) handler, with the callback URL cleaned.
 */
export async function runNextAuth(request: Request, action: string[]): Promise<Response> {
  const query: Record<string, unknown> = Object.fromEntries(new URL(request.url).searchParams);
  if (typeof query.callbackUrl === 'string') query.callbackUrl = safeCallbackPath(query.callbackUrl, env().publicUrl);
  const response = new CollectedResponse();
  const handler = NextAuth as unknown as (req: unknown, res: unknown, options: unknown) => Promise<void>;
  await handler(
    {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      cookies: cookiesForNextAuth(parseCookieHeader(request.headers.get('cookie'))),
      query: { ...query, nextauth: action },
      body: await authBody(request),
    },
    response,
    authOptions(),
  );
  return response.toResponse();
}
