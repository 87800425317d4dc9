// Real tokens for the benchmark, through the real flow — registration, authorization with PKCE, the
// person's sign-in and consent, the code exchange — one client (and so one grant) per connection, so that
// no measurement is served from one hot row.
import { createHash, randomBytes } from 'node:crypto';
import { type CookieJar, signIn } from '../tests/helpers/session';

export type Connection = { clientId: string; accessToken: string; refreshToken: string };

export async function connectClients(baseUrl: string, person: { email: string; password: string }, count: number): Promise<Connection[]> {
  const { jar, response } = await signIn(baseUrl, person.email, person.password);
  if (response.status !== 200) throw new Error(`bench: signing in as ${person.email} failed (${response.status})`);
  const connections: Connection[] = [];
  for (let index = 0; index < count; index++) connections.push(await connectClient(baseUrl, jar, index));
  return connections;
}

/** One client through the whole flow as the person whose session `jar` holds; `index` names the client. */
export async function connectClient(baseUrl: string, jar: CookieJar, index: number | string): Promise<Connection> {
  const redirectUri = `https://bench-${index}.example/callback`;
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: `Bench client ${index}`, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
  });
  const client = (await registered.json()) as { client_id: string };
  if (registered.status !== 201) throw new Error(`bench: registration failed: ${JSON.stringify(client)}`);

  const verifier = randomBytes(32).toString('base64url');
  const authorize = `${baseUrl}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'offline_access mcp:read mcp:write',
    state: randomBytes(8).toString('hex'),
  })}`;
  const consent = await follow(jar, authorize, baseUrl);
  const html = await consent.response.text();
  const uid = /\/consent\/([^/?]+)/.exec(consent.url)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const org = /<input[^>]*name="org"[^>]*value="([^"]+)"/.exec(html)?.[1];
  if (!uid || !csrf || !org) throw new Error(`bench: no consent form at ${consent.url}`);
  const body = new URLSearchParams({ csrf, decision: 'allow', org });
  body.append('scope', 'mcp:read');
  body.append('scope', 'mcp:write');
  const back = await follow(jar, `${baseUrl}/consent/${uid}/decision`, baseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
    body: body.toString(),
  });
  const code = new URL(back.url).searchParams.get('code');
  if (!code) throw new Error(`bench: consent ended at ${back.url}`);
  const exchanged = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier }).toString(),
  });
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };
  if (exchanged.status !== 200) throw new Error(`bench: token exchange failed: ${JSON.stringify(tokens)}`);
  return { clientId: client.client_id, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** Follows redirects while they stay on Gatehouse. */
async function follow(jar: CookieJar, url: string, baseUrl: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
  let current = url;
  let response = await jar.fetch(current, init);
  for (let hops = 0; hops < 10 && [302, 303, 307].includes(response.status); hops++) {
    const next = new URL(response.headers.get('location')!, current).toString();
    if (!next.startsWith(baseUrl)) return { response, url: next };
    current = next;
    response = await jar.fetch(current);
  }
  return { response, url: current };
}
