// A real OAuth authorization server for an upstream's own access tokens: a second oidc-provider, started
// on 127.0.0.1 by the test, with the client-credentials grant (RFC 6749 §4.4), resource indicators
// (RFC 8707), token introspection (RFC 7662) for the upstream to check a token, and a short token lifetime
// the test can change. It records every request to its token endpoint (to count Gatehouse's token requests
// and see what they carried) and every token it issued (to revoke one, and to show that none is ever logged).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';

/** Gatehouse's client at this server, and the upstream's own (it introspects tokens). */
export const GATEHOUSE_CLIENT = { id: 'gatehouse-notes', secret: 'cc-secret-9f2e4a7c1b3d5e6f8a0b' };
export const GATEHOUSE_POST_CLIENT = { id: 'gatehouse-notes-post', secret: 'cc-post-secret-4c8e1a9b7d2f6e3a5b0c' };
export const UPSTREAM_CLIENT = { id: 'notes-api', secret: 'notes-api-introspection-secret-77aa' };
export const SCOPES = ['notes:read', 'notes:write', 'notes:admin'];

/** One request to the token endpoint. */
export type TokenRequest = { at: number; client: string | undefined; authorization: string | undefined; body: URLSearchParams; status: number };

export type RunningTokenServer = {
  /** The issuer, and the token endpoint Gatehouse is given. */
  issuer: string;
  tokenUrl: string;
  /** Every request to the token endpoint, in order. */
  tokenRequests: TokenRequest[];
  /** Every access token issued, in order. */
  issued: string[];
  /** The lifetime of the tokens issued from now on, and whether expires_in is sent with them. */
  setLifetime(seconds: number, options?: { sendExpiresIn?: boolean }): void;
  /** Holds every token request this long before answering it (0: none), so that callers overlap. */
  setDelay(ms: number): void;
  /** Resource indicators it accepts (RFC 8707): an unknown one is refused with invalid_target. */
  allowResource(resource: string): void;
  /** Revokes an issued token: introspection says it is no longer active. */
  revoke(token: string): Promise<void>;
  /** RFC 7662 introspection, as the upstream does it (authenticated as UPSTREAM_CLIENT). */
  introspect(token: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
};

export async function startTokenServer(): Promise<RunningTokenServer> {
  let lifetime = 60;
  let sendExpiresIn = true;
  let delayMs = 0;
  const resources = new Set<string>();
  const tokenRequests: TokenRequest[] = [];
  const issued: string[] = [];

  const http: HttpServer = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const client = (id: string, secret: string, method: 'client_secret_basic' | 'client_secret_post') => ({
    client_id: id,
    client_secret: secret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: method,
    scope: SCOPES.join(' '),
  });
  const provider = new Provider(issuer, {
    clients: [
      client(GATEHOUSE_CLIENT.id, GATEHOUSE_CLIENT.secret, 'client_secret_basic'),
      client(GATEHOUSE_POST_CLIENT.id, GATEHOUSE_POST_CLIENT.secret, 'client_secret_post'),
      client(UPSTREAM_CLIENT.id, UPSTREAM_CLIENT.secret, 'client_secret_basic'),
    ],
    scopes: SCOPES,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!resources.has(indicator)) throw new errors.InvalidTarget();
          // Opaque, so that the upstream introspects it and a revocation takes effect at once.
          return { scope: SCOPES.join(' '), audience: indicator, accessTokenFormat: 'opaque', accessTokenTTL: lifetime };
        },
      },
    },
    // biome-ignore lint/correctness/noComponentHookFactories: an oidc-provider setting named after its model, not a component
    ttl: { ClientCredentials: () => lifetime },
  });
  provider.on('grant.success', (ctx) => {
    const body = ctx.body as { access_token?: string; expires_in?: number };
    if (body.access_token) issued.push(body.access_token);
    if (!sendExpiresIn) delete body.expires_in;
  });
  // Every token request, as it arrived and as it was answered (the provider parsed the form).
  provider.use(async (ctx, next) => {
    const isToken = ctx.method === 'POST' && ctx.path === '/token';
    if (isToken && delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await next();
    if (!isToken) return;
    const form = (ctx.oidc as unknown as { body?: Record<string, string> } | undefined)?.body ?? {};
    const body = new URLSearchParams(form);
    const authorization = ctx.headers.authorization;
    // The client it authenticated as: the user part of HTTP Basic (form-encoded: RFC 6749 §2.3.1), or client_id in the body.
    const basic = authorization?.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8') : null;
    const client = basic !== null ? decodeURIComponent(basic.slice(0, basic.indexOf(':'))) : (body.get('client_id') ?? undefined);
    tokenRequests.push({ at: Date.now(), client, authorization, body, status: ctx.status });
  });
  http.on('request', provider.callback());

  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    tokenRequests,
    issued,
    setLifetime(seconds, options = {}) {
      lifetime = seconds;
      sendExpiresIn = options.sendExpiresIn ?? true;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    allowResource(resource) {
      resources.add(resource);
    },
    async revoke(token) {
      const found = await provider.ClientCredentials.find(token);
      await found?.destroy();
    },
    async introspect(token) {
      const response = await fetch(`${issuer}/token/introspection`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${UPSTREAM_CLIENT.id}:${UPSTREAM_CLIENT.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }),
      });
      return (await response.json()) as Record<string, unknown>;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * What the upstream accepts: a token the authorization server says is active, issued to `clientId`,
 * carrying `scope` and (when given) for `audience` — checked at the server on every request (introspection).
 */
export function introspectingVerifier(server: RunningTokenServer, expected: { clientIds: string[]; scope: string; audience?: string }) {
  return async (token: string): Promise<boolean> => {
    const claims = await server.introspect(token);
    if (claims.active !== true || !expected.clientIds.includes(String(claims.client_id))) return false;
    if (
      !String(claims.scope ?? '')
        .split(' ')
        .includes(expected.scope)
    )
      return false;
    if (expected.audience !== undefined && claims.aud !== expected.audience && !(Array.isArray(claims.aud) && claims.aud.includes(expected.audience))) return false;
    return true;
  };
}
