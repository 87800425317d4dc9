// Driving the OAuth flow over HTTP the way a client and a person's browser do: register, authorize,
// sign in, answer the consent screen, exchange the code. Browser tests do the person's part in Chromium.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { CookieJar, signIn } from './session';

export type RegisteredClient = { client_id: string; client_secret?: string; registration_access_token: string; registration_client_uri: string; redirect_uris: string[] } & Record<string, unknown>;

export async function register(baseUrl: string, body: Record<string, unknown>): Promise<RegisteredClient> {
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(201);
  return json as RegisteredClient;
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type AuthorizeOptions = {
  client: RegisteredClient;
  redirectUri?: string;
  scope?: string;
  resource?: string;
  extra?: Record<string, string>;
  challenge?: string;
};

export function authorizeUrl(baseUrl: string, options: AuthorizeOptions & { challenge: string }): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: options.client.client_id,
    redirect_uri: options.redirectUri ?? options.client.redirect_uris[0]!,
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
    ...(options.resource !== undefined ? { resource: options.resource } : {}),
    ...options.extra,
  });
  return `${baseUrl}/oauth/authorize?${params}`;
}

/** A person's browser: cookies, following redirects inside Gatehouse only. */
export class Browser {
  constructor(
    readonly baseUrl: string,
    readonly jar = new CookieJar(),
  ) {}

  async signIn(email: string, password: string): Promise<void> {
    const { jar, response } = await signIn(this.baseUrl, email, password);
    expect(response.status).toBe(200);
    for (const [name, value] of jar.entries()) this.jar.set(name, value);
  }

  /** Follows redirects while they stay on Gatehouse; returns the first response that leaves or stops. */
  async follow(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let response = await this.jar.fetch(current, init);
    for (let hops = 0; hops < 10 && [302, 303, 307].includes(response.status); hops++) {
      const next = new URL(response.headers.get('location')!, current).toString();
      if (!next.startsWith(this.baseUrl)) return { response, url: next };
      current = next;
      response = await this.jar.fetch(current);
    }
    return { response, url: current };
  }
}

export type ConsentForm = {
  uid: string;
  csrf: string;
  /** Organizations that can be picked. */
  orgIds: string[];
  /** Organizations shown disabled. */
  disabledOrgIds: string[];
  html: string;
};

/** Opens the consent page the authorization request led to, and reads its form. */
export async function openConsent(browser: Browser, authorize: string): Promise<ConsentForm> {
  const { response, url } = await browser.follow(authorize);
  expect(response.status, `ended at ${url}`).toBe(200);
  const uid = /\/consent\/([^/?]+)/.exec(url)?.[1];
  expect(uid, `ended at ${url}`).toBeDefined();
  const html = await response.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const radios = [...html.matchAll(/<input[^>]*name="org"[^>]*>/g)].map((match) => ({
    id: /value="([^"]+)"/.exec(match[0])![1]!,
    disabled: /\sdisabled=""/.test(match[0]),
  }));
  return {
    uid: uid!,
    csrf,
    orgIds: radios.filter((radio) => !radio.disabled).map((radio) => radio.id),
    disabledOrgIds: radios.filter((radio) => radio.disabled).map((radio) => radio.id),
    html,
  };
}

/**
 * Submits the consent form; returns where the browser ends up: the client's redirect URI, or the
 * consent page again when the form was refused.
 */
export async function decide(browser: Browser, form: ConsentForm, decision: { allow: boolean; orgId?: string; scopes?: string[] }): Promise<URL> {
  const body = new URLSearchParams({ csrf: form.csrf, decision: decision.allow ? 'allow' : 'deny' });
  if (decision.orgId ?? form.orgIds[0]) body.set('org', decision.orgId ?? form.orgIds[0]!);
  for (const scope of decision.scopes ?? ['mcp:read', 'mcp:write']) body.append('scope', scope);
  const { response, url } = await browser.follow(`${browser.baseUrl}/consent/${form.uid}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: browser.baseUrl },
    body: body.toString(),
  });
  expect([200, 302, 303], `ended at ${url} with ${response.status}`).toContain(response.status);
  return new URL(url);
}

export async function tokenRequest(baseUrl: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
  return { response, body: (await response.json()) as Record<string, string> };
}

/** HTTP Basic client authentication for a confidential client (RFC 6749 §2.3.1); nothing for a public one. */
export function clientAuthentication(client: RegisteredClient): Record<string, string> {
  if (!client.client_secret) return {};
  const user = encodeURIComponent(client.client_id);
  const secret = encodeURIComponent(client.client_secret);
  return { authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` };
}

export type Tokens = { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };

/** The whole flow for one person: authorize, sign in, allow, exchange. */
export async function connect(
  baseUrl: string,
  client: RegisteredClient,
  person: { email: string; password: string },
  options: { scopes?: string[]; orgId?: string; scope?: string; redirectUri?: string } = {},
): Promise<{ tokens: Tokens; browser: Browser; grantRedirect: URL }> {
  const browser = new Browser(baseUrl);
  await browser.signIn(person.email, person.password);
  const { verifier, challenge } = pkce();
  const redirectUri = options.redirectUri ?? client.redirect_uris[0]!;
  const form = await openConsent(browser, authorizeUrl(baseUrl, { client, challenge, scope: options.scope, redirectUri }));
  const back = await decide(browser, form, { allow: true, scopes: options.scopes, orgId: options.orgId });
  const code = back.searchParams.get('code');
  expect(code, back.toString()).toBeTruthy();
  const { response, body } = await tokenRequest(
    baseUrl,
    { grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier },
    clientAuthentication(client),
  );
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { tokens: body as unknown as Tokens, browser, grantRedirect: back };
}
