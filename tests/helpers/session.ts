// Signing in over HTTP as a browser would (next-auth's CSRF token + credentials callback), keeping
// cookies in a small jar.
import type { Fetch } from './from-address';

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** `send`: how requests go out (the global fetch, or one from a chosen address: from-address.ts). */
  constructor(private readonly send: Fetch = fetch) {}

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (value === '' || /max-age=0/i.test(header) || /expires=thu, 01 jan 1970/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  entries(): [string, string][] {
    return [...this.cookies];
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    const response = await this.send(url, { ...init, headers, redirect: 'manual' });
    this.store(response);
    return response;
  }
}

/**
 * Signs in with email and password; returns the jar and the credentials callback's response. `jar` may
 * already hold cookies (a planted session), `headers` go with the credentials (a claimed address).
 */
export async function signIn(baseUrl: string, email: string, password: string, options: { jar?: CookieJar; headers?: Record<string, string> } = {}) {
  const jar = options.jar ?? new CookieJar();
  const { csrfToken } = (await (await jar.fetch(`${baseUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
  const response = await jar.fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true' }).toString(),
  });
  return { jar, response };
}

/** Signs out as the sign-out button does (next-auth's CSRF token + signout); returns its response. */
export async function signOut(baseUrl: string, jar: CookieJar): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${baseUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
  return jar.fetch(`${baseUrl}/api/auth/signout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrfToken, json: 'true' }).toString(),
  });
}
