// The errors Gatehouse's own OAuth endpoint steps answer with (endpoints/*, registration.ts, the bridge),
// as typed values: thrown where the request is refused, rendered once, by `renderOAuthError`, in the
// single catch of handle-request.ts — so every such answer has the same JSON shape (RFC 6749 §5.2: `error`
// and `error_description`), is never cached, and on /oauth/register carries the same CORS headers as a
// successful registration.
//
// Not here: the provider's own answers (oidc-provider renders its errors itself, and errors thrown from
// the storage it calls are its own classes — see unavailable.ts), and answers meant for a person in a
// browser, which are HTML pages (consent-errors.ts `consentErrorPage`).
import { RETRY_AFTER_SECONDS } from '@/lib/db/errors';
import { withOpenCors } from './endpoints/responses';

export type OAuthErrorCode =
  // RFC 6749 §5.2 (token endpoint), also used by the provider on its other endpoints.
  | 'invalid_request'
  | 'invalid_client'
  // RFC 8707 §2.
  | 'invalid_target'
  // RFC 6750 §3.1: the registration access token of RFC 7592.
  | 'invalid_token'
  // RFC 7591 §3.2.2.
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // RFC 6749 §4.1.2.1.
  | 'server_error'
  | 'temporarily_unavailable'
  // Not a registered OAuth error code; see TooManyRequests.
  | 'too_many_requests';

export class OAuthError extends Error {
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    readonly code: OAuthErrorCode,
    readonly description: string,
    headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
    this.headers = headers;
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_request', description);
  }
}

/** RFC 7591 §3.2.2: registration metadata Gatehouse does not accept (registration.ts, and its users). */
export abstract class InvalidRegistration extends OAuthError {
  declare readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata';
}

export class InvalidClientMetadata extends InvalidRegistration {
  constructor(description: string) {
    super(400, 'invalid_client_metadata', description);
  }
}

export class InvalidRedirectUri extends InvalidRegistration {
  constructor(description: string) {
    super(400, 'invalid_redirect_uri', description);
  }
}

/**
 * 413 (RFC 9110 §15.5.14). Its code is the endpoint's own for a bad request: `invalid_client_metadata` on
 * /oauth/register (RFC 7591 §3.2.2), `invalid_request` elsewhere.
 */
export class PayloadTooLarge extends OAuthError {
  constructor(code: 'invalid_request' | 'invalid_client_metadata', description: string) {
    super(413, code, description);
  }
}

export class InvalidClient extends OAuthError {
  constructor(description: string) {
    super(401, 'invalid_client', description);
  }
}

export class InvalidTarget extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_target', description);
  }
}

/** RFC 6750 §3: a Bearer token refused, with the challenge that says so. */
export class InvalidToken extends OAuthError {
  constructor(description: string) {
    super(401, 'invalid_token', description, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
}

/**
 * 429 (RFC 6585 §4) with Retry-After. The code stays `too_many_requests`, which no OAuth RFC registers:
 * there is no standard code for "this client is sending too much" — `invalid_request` would tell it that
 * its request is malformed (a client would not retry it), and `temporarily_unavailable` (RFC 6749
 * §4.1.2.1) means the server as a whole is overloaded. A client that does not know the code still acts
 * on the status and Retry-After, and one that logs it reads what happened.
 */
export class TooManyRequests extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super(429, 'too_many_requests', description, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503 with Retry-After: the database, or the provider built on it, is not there yet. */
export class TemporarilyUnavailable extends OAuthError {
  constructor(description: string) {
    super(503, 'temporarily_unavailable', description, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
  }
}

export class ServerError extends OAuthError {
  constructor(description: string) {
    super(500, 'server_error', description);
  }
}

/** The one rendering of an OAuthError: the provider's JSON shape, never cached, open CORS where asked. */
export function renderOAuthError(error: OAuthError, options: { openCors: boolean }): Response {
  const response = Response.json({ error: error.code, error_description: error.description }, { status: error.status, headers: { 'Cache-Control': 'no-store', ...error.headers } });
  return options.openCors ? withOpenCors(response) : response;
}
