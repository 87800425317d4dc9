// The access token Gatehouse sends to a connector's upstream when the connector has client credentials
// (docs/connectors.md, Client credentials): got from the upstream's authorization server with the
// client-credentials grant (RFC 6749 §4.4; MCP's client-credentials extension, SEP-1046), with the
// configured scope (§3.3) and resource indicator (RFC 8707), and sent as `Authorization: Bearer` (RFC 6750 §2.1).
//
// - One token per connector per process, kept until shortly before it expires (tokenUsableUntil); the key
//   includes the sealed configuration, so an edited or re-sealed one (secret:rotate) gets a token of its own.
// - Single flight: calls that need a token while one is being requested share that request.
// - An upstream's 401 drops the token it refused (bearerFetch), so the next request gets a new one; the resend
//   of the call is the caller's (forward.ts, catalog.ts).
// - The token request is bounded in time (TOKEN_TIMEOUT_MS) and in the size of the answer read
//   (TOKEN_RESPONSE_BYTES). Its failures are UpstreamErrors that name the authorization server's error
//   code (§5.2) and never the secret; the token itself is never logged or put in an error.
//
// The request and the reading of the answer are oauth4webapi's (a maintained, spec-checked OAuth client).
import { createHash } from 'node:crypto';
import {
  allowInsecureRequests,
  ClientSecretBasic,
  ClientSecretPost,
  clientCredentialsGrantRequest,
  customFetch,
  OperationProcessingError,
  processClientCredentialsResponse,
  ResponseBodyError,
  UnsupportedOperationError,
  WWWAuthenticateChallengeError,
} from 'oauth4webapi';
import { assertNoTransaction } from '@/lib/db/open-transaction';
import { processSingleton } from '@/lib/server/process-singleton';
import type { SealedClientCredentials } from './client-credentials';
import { openSealedClientSecret } from './credentials';
import type { UpstreamTarget } from './upstream';
import { UpstreamError } from './upstream-errors';
import { headerRecord } from './upstream-http';

/** Which connector's token, from what configuration; `timeoutMs` is the connector's. */
export type TokenSource = { slug: string; credentials: SealedClientCredentials; timeoutMs: number };

/** A token whose answer gave no expires_in (it is RECOMMENDED, not required: RFC 6749 §5.1) is used this long. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;
/** Nor is one kept longer than this, whatever expires_in says. */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;
/** A token is replaced this much before it expires: 10 % of its lifetime, at least MIN_MARGIN_SECONDS. */
export const MARGIN_SHARE = 0.1;
export const MIN_MARGIN_SECONDS = 5;
/** The token request's own bound (less when the connector's timeout is shorter). */
export const TOKEN_TIMEOUT_MS = 10_000;
/** The most bytes of a token endpoint's answer read. */
export const TOKEN_RESPONSE_BYTES = 64 * 1024;
// RFC 6750 §2.1: what a bearer token may be in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * Until when a token got at `obtainedAt` (ms) may be sent: its lifetime less the margin, so that it never
 * reaches an upstream about to expire (a token shorter-lived than its margin serves only the calls that
 * waited for it).
 */
export function tokenUsableUntil(obtainedAt: number, expiresIn: number | undefined): number {
  const lifetime = Math.min(expiresIn !== undefined && Number.isFinite(expiresIn) && expiresIn >= 0 ? expiresIn : DEFAULT_TOKEN_LIFETIME_SECONDS, MAX_TOKEN_LIFETIME_SECONDS);
  const margin = Math.max(lifetime * MARGIN_SHARE, MIN_MARGIN_SECONDS);
  return obtainedAt + Math.max(0, lifetime - margin) * 1000;
}

type Cached = { key: string; token: { value: string; usableUntil: number } | null; pending: Promise<string> | null };

function cache(): Map<string, Cached> {
  return processSingleton('connectorAccessTokens', () => new Map<string, Cached>());
}

function entryFor(source: TokenSource): Cached {
  const { tokenUrl, clientId, clientSecretSealed, clientAuth, scope, resource } = source.credentials;
  const key = createHash('sha256')
    .update(JSON.stringify([tokenUrl, clientId, clientSecretSealed, clientAuth, scope, resource]))
    .digest('hex');
  const tokens = cache();
  let entry = tokens.get(source.slug);
  // A changed configuration replaces the entry: the old token is not used again, nor kept.
  if (!entry || entry.key !== key) {
    entry = { key, token: null, pending: null };
    tokens.set(source.slug, entry);
  }
  return entry;
}

/** The connector's access token: the cached one while it is usable, else one requested (shared by concurrent callers). */
export async function accessToken(source: TokenSource): Promise<string> {
  const entry = entryFor(source);
  if (entry.token && Date.now() < entry.token.usableUntil) return entry.token.value;
  if (!entry.pending) {
    const pending = requestToken(source).then(
      (token) => {
        entry.token = token;
        entry.pending = null;
        return token.value;
      },
      (error: unknown) => {
        entry.pending = null;
        throw error;
      },
    );
    entry.pending = pending;
  }
  return entry.pending;
}

/** Forgets `token` if it is still the connector's (an upstream refused it); a newer one is kept. */
export function forgetAccessToken(source: TokenSource, token: string): void {
  const entry = entryFor(source);
  if (entry.token?.value === token) entry.token = null;
}

/** Forgets every cached token (tests). */
export function forgetAllAccessTokens(): void {
  cache().clear();
}

/**
 * `base` with the target's access token added to every request (none when the connector has header
 * credentials), and the token forgotten when the upstream answers 401.
 */
export function bearerFetch(target: UpstreamTarget, base: typeof fetch): typeof fetch {
  const source = target.token;
  if (!source) return base;
  return async (input, init) => {
    const token = await accessToken(source);
    const response = await base(input, { ...init, headers: headerRecord(init?.headers, { authorization: `Bearer ${token}` }) });
    if (response.status === 401) forgetAccessToken(source, token);
    return response;
  };
}

/** Whether a failure is the upstream refusing the access token (HTTP 401): a new token may be worth one more try. */
export function refusedAccessToken(target: UpstreamTarget, failure: unknown): boolean {
  return target.token !== undefined && failure instanceof UpstreamError && failure.kind === 'refused' && failure.status === 401;
}

async function requestToken(source: TokenSource): Promise<{ value: string; usableUntil: number }> {
  assertNoTransaction('a token request to an authorization server');
  const { credentials } = source;
  const url = new URL(credentials.tokenUrl);
  const timeoutMs = Math.min(source.timeoutMs, TOKEN_TIMEOUT_MS);
  // Only the token endpoint is used: no discovery, so the issuer is only a name here.
  const server = { issuer: url.origin, token_endpoint: credentials.tokenUrl };
  const client = { client_id: credentials.clientId };
  const secret = openSealedClientSecret(credentials);
  const authentication = credentials.clientAuth === 'client_secret_post' ? ClientSecretPost(secret) : ClientSecretBasic(secret);
  const parameters = new URLSearchParams();
  if (credentials.scope) parameters.set('scope', credentials.scope);
  if (credentials.resource) parameters.set('resource', credentials.resource);
  const obtainedAt = Date.now();
  try {
    const response = await clientCredentialsGrantRequest(server, client, authentication, parameters, {
      signal: AbortSignal.timeout(timeoutMs),
      [customFetch]: boundedFetch,
      // An upstream on a private network may have its authorization server on plain http, as connector URLs may.
      [allowInsecureRequests]: url.protocol === 'http:',
    });
    const answer = await processClientCredentialsResponse(server, client, response);
    // Only bearer tokens are sent (RFC 6750); DPoP-bound ones (RFC 9449) would need a proof Gatehouse does not make.
    if (answer.token_type !== 'bearer') throw new UpstreamError(`${noToken(url)}: it issued a token of type "${visible(answer.token_type, secret)}", not a bearer token`, 'malformed');
    if (answer.access_token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(answer.access_token)) {
      throw new UpstreamError(`${noToken(url)}: the access token it issued cannot be sent as a bearer token (RFC 6750 §2.1)`, 'malformed');
    }
    return { value: answer.access_token, usableUntil: tokenUsableUntil(obtainedAt, answer.expires_in) };
  } catch (error) {
    throw await tokenError(error, url, timeoutMs, secret);
  }
}

function noToken(url: URL): string {
  return `Gatehouse could not get an access token from the authorization server at ${url.origin}`;
}

/** A failed token request in words for the admin or the caller: the server's error code (RFC 6749 §5.2), never the secret or a token. */
async function tokenError(error: unknown, url: URL, timeoutMs: number, secret: string): Promise<UpstreamError> {
  const prefix = noToken(url);
  if (error instanceof UpstreamError) {
    if (error.kind === 'too_large') return new UpstreamError(`${prefix}: its answer is larger than ${TOKEN_RESPONSE_BYTES} bytes`, 'too_large');
    return error.message.startsWith(prefix) ? error : new UpstreamError(`${prefix}: ${visible(error.message, secret)}`, error.kind);
  }
  if (error instanceof ResponseBodyError) return refusal(prefix, error.status, error.error, error.error_description, secret);
  if (error instanceof WWWAuthenticateChallengeError) {
    // A 401 with a challenge: the error code is in the challenge, or in the body it did not read.
    const fromChallenge = error.cause.find((challenge) => challenge.parameters.error)?.parameters;
    const body = (await error.response.json().catch(() => null)) as { error?: unknown; error_description?: unknown } | null;
    const code = fromChallenge?.error ?? (typeof body?.error === 'string' ? body.error : undefined);
    const description = fromChallenge?.error_description ?? (typeof body?.error_description === 'string' ? body.error_description : undefined);
    return refusal(prefix, error.status, code, description, secret);
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') return new UpstreamError(`${prefix}: it did not answer within ${timeoutMs} ms`, 'timeout');
  if (error instanceof OperationProcessingError || error instanceof UnsupportedOperationError) {
    const status = (error.cause as { status?: unknown } | undefined)?.status;
    const detail = typeof status === 'number' ? `HTTP ${status}` : visible((error as Error).message, secret);
    return new UpstreamError(`${prefix}: its answer is not a token response (${detail})`, 'malformed');
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const reason = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return new UpstreamError(`${prefix}: it could not be reached (${visible(reason, secret)})`, 'unreachable');
}

function refusal(prefix: string, status: number, code: string | undefined, description: string | undefined, secret: string): UpstreamError {
  const named = code ? visible(code, secret).slice(0, 64) : 'no error code';
  const described = description ? `: ${visible(description, secret)}` : '';
  return new UpstreamError(`${prefix}: it answered HTTP ${status}, ${named}${described}`, 'refused');
}

/** Text from the authorization server, safe to show: one printable line, bounded, and never the secret. */
function visible(text: string, secret: string): string {
  return text
    .split(secret)
    .join('[secret]')
    .split('\n')[0]!
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 200);
}

/**
 * The token request's fetch: no redirect followed (the client secret goes to the configured URL only), and
 * the answer read whole but refused past TOKEN_RESPONSE_BYTES, so a server cannot make Gatehouse buffer more.
 */
async function boundedFetch(url: string, options: RequestInit): Promise<Response> {
  const response = await fetch(url, { ...options, redirect: 'error' });
  const declared = Number(response.headers.get('content-length') ?? '0');
  const tooLarge = () => new UpstreamError(`its answer is larger than ${TOKEN_RESPONSE_BYTES} bytes`, 'too_large');
  if (declared > TOKEN_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let seen = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += value.byteLength;
      if (seen > TOKEN_RESPONSE_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const body = response.status === 204 || response.status === 304 ? null : Buffer.concat(chunks);
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
