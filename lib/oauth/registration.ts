// RFC 7591 registration requests, checked and normalized before oidc-provider sees them (docs/protocol.md §3).
//
// Real MCP clients send quirky bodies that must still succeed: unknown scopes and grant types (dropped),
// an empty scope, custom-scheme and loopback redirect URIs with `application_type: web` or none at all
// (made `native`, which is what they are — oidc-provider accepts those URIs only for native clients,
// and only native clients get RFC 8252's any-port loopback matching).
import { containsUnstorableText } from '@/lib/db/storable-text';
import { InvalidClientMetadata, InvalidRedirectUri } from './errors';

export const REGISTRATION_LIMITS = {
  bodyBytes: 64 * 1024,
  redirectUris: 10,
  uriLength: 2000,
  nameLength: 200,
  stringLength: 2000,
  contacts: 5,
} as const;

const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'];
const SUPPORTED_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

type Metadata = Record<string, unknown>;

/** Returns the body to hand to the provider, or throws InvalidClientMetadata / InvalidRedirectUri. */
export function normalizeRegistration(input: unknown): Metadata {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidClientMetadata('the registration body must be a JSON object');
  }
  if (containsUnstorableText(input)) {
    throw new InvalidClientMetadata('metadata must be well-formed Unicode text without NUL characters');
  }
  const body: Metadata = { ...(input as Metadata) };

  const redirectUris = body.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    throw new InvalidRedirectUri('redirect_uris must be a non-empty array');
  }
  if (redirectUris.length > REGISTRATION_LIMITS.redirectUris) {
    throw new InvalidRedirectUri(`at most ${REGISTRATION_LIMITS.redirectUris} redirect_uris`);
  }
  const kinds = redirectUris.map(classifyRedirectUri);
  body.redirect_uris = [...new Set(redirectUris as string[])];

  // Native if any redirect URI is a private-use scheme or http on loopback, whatever was declared.
  if (kinds.some((kind) => kind === 'custom' || kind === 'loopback')) body.application_type = 'native';
  else if (body.application_type !== 'native') body.application_type = 'web';
  if (body.application_type === 'native' && kinds.includes('https-loopback')) {
    throw new InvalidRedirectUri('https redirect URIs on loopback cannot be mixed with native ones');
  }

  body.grant_types = filterList(body.grant_types, SUPPORTED_GRANT_TYPES, ['authorization_code', 'refresh_token']);
  if (!(body.grant_types as string[]).includes('authorization_code')) {
    (body.grant_types as string[]).unshift('authorization_code');
  }
  body.response_types = ['code'];

  if (body.token_endpoint_auth_method === undefined) body.token_endpoint_auth_method = 'none';
  // A type check, not String(): an object whose own `toString` is not a function cannot be converted
  // and would throw (a 500) instead of being refused.
  const authMethod = body.token_endpoint_auth_method;
  if (typeof authMethod !== 'string' || !SUPPORTED_AUTH_METHODS.includes(authMethod)) {
    throw new InvalidClientMetadata(`token_endpoint_auth_method must be one of ${SUPPORTED_AUTH_METHODS.join(', ')}`);
  }

  // A registered scope would restrict the client (oidc-provider refuses anything outside it); what a
  // client may do is decided by the person on the consent screen instead. Unknown scopes such as
  // `claudeai` therefore cost nothing either.
  delete body.scope;

  for (const [field, value] of Object.entries(body)) {
    if (typeof value === 'string') {
      const limit = field === 'client_name' ? REGISTRATION_LIMITS.nameLength : REGISTRATION_LIMITS.stringLength;
      if (value.length > limit) {
        throw new InvalidClientMetadata(`${field} must be at most ${limit} characters`);
      }
    }
  }
  refuseInvisibleCharacters(body);
  if (Array.isArray(body.contacts) && body.contacts.length > REGISTRATION_LIMITS.contacts) {
    throw new InvalidClientMetadata(`at most ${REGISTRATION_LIMITS.contacts} contacts`);
  }
  if (Array.isArray(body.post_logout_redirect_uris)) delete body.post_logout_redirect_uris;
  // Metadata that makes Gatehouse fetch URLs chosen by an anonymous registrant is not accepted: keys go
  // inline (`jwks`), and pairwise sector identifiers are not offered.
  for (const field of ['jwks_uri', 'sector_identifier_uri', 'request_uris']) {
    if (field in body) {
      throw new InvalidClientMetadata(`${field} is not supported${field === 'jwks_uri' ? ': send the keys inline as jwks' : ''}`);
    }
  }
  return body;
}

/**
 * Characters that change how text reads without being seen: controls (Cc), format characters (Cf: the
 * bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E,
 * U+200F and U+061C, zero-width characters, the soft hyphen, tags) and the line and paragraph separators.
 * With them "Trusted\u202Eetoн" displays as something else on the consent screen and in the consoles.
 * Everything else is allowed, mixed scripts included: the consent screen shows the host the responses
 * go to beside the name, and whether the client is verified.
 */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * Throws invalid_client_metadata naming the first field whose text (at any depth, keys included) holds
 * an invisible or control character. The one rule for client metadata people are shown, wherever it
 * comes from: registration, RFC 7592 updates, metadata documents, the console. No field of a client's
 * metadata (names, URIs, identifiers, contacts, keys) needs such a character.
 */
export function refuseInvisibleCharacters(metadata: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(metadata)) {
    const found = findInvisible(field) ?? findInvisible(value);
    if (found !== null) {
      const codePoint = `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new InvalidClientMetadata(`${visibly(field)} must not contain invisible, bidirectional or control characters (found ${codePoint})`);
    }
  }
}

/**
 * The first invisible or control character of `text` as `U+XXXX`, or null: the same rule for other text
 * people are shown next to an app (an access request's note, lib/apps/requests.ts).
 */
export function invisibleCharacterIn(text: string): string | null {
  const found = findInvisible(text);
  return found === null ? null : `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` with each invisible or control character written as its escape, so that a message shows it. */
function visibly(text: string): string {
  return text.replace(new RegExp(INVISIBLE_OR_CONTROL.source, 'gu'), (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
}

/** The first invisible or control character in any string of `value`; each object visited once. */
function findInvisible(value: unknown): string | null {
  const pending: unknown[] = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      const match = INVISIBLE_OR_CONTROL.exec(next);
      if (match) return match[0];
    } else if (typeof next === 'object' && next !== null && !seen.has(next)) {
      seen.add(next);
      for (const [key, item] of Object.entries(next)) pending.push(key, item);
    }
  }
  return null;
}

/** What a client proves itself with at the token endpoint: nothing, the secret it was issued, or its own key. */
function credentialOf(method: unknown): string {
  const named = typeof method === 'string' ? method : 'client_secret_basic'; // RFC 7591 §2: the default
  return named === 'client_secret_basic' || named === 'client_secret_post' ? 'secret' : named;
}

/**
 * Whether an RFC 7592 update keeps the kind of credential the client authenticates with. A public client
 * cannot make itself confidential (the provider would issue a secret that Gatehouse never shows again,
 * RFC 7592 §2.2 notwithstanding, so the client could never authenticate), nor a confidential client drop
 * its secret or swap it for a key: it registers again. Switching between the two ways of sending the same
 * secret (Basic or in the body) is allowed.
 */
export function sameCredential(before: unknown, after: unknown): boolean {
  return credentialOf(before) === credentialOf(after);
}

type RedirectKind = 'https' | 'https-loopback' | 'loopback' | 'custom';

/**
 * Single-word private-use schemes that real MCP clients register (RFC 8252 §7.1 asks for a reverse
 * domain name; these predate that advice and cannot change): Cursor's `cursor://anysphere.cursor-mcp/…`.
 */
const SINGLE_WORD_SCHEMES = new Set(['cursor:']);
/** RFC 8252 §7.1: a private-use scheme is a domain name the app's publisher controls, reversed. */
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+:$/;

/**
 * https; http only on loopback; private-use schemes named after a domain (or one of the few single-word
 * ones real clients use). Never fragments, userinfo (`https://app.example@evil.example/cb`
 * goes to evil.example while reading as app.example), nor any spelling that parsers read differently:
 * the URI must be printable ASCII without a backslash, and exactly its own WHATWG URL serialisation, so
 * that `https:evil.example/cb`, `http:/127.0.0.1/cb`, `https://evil.example\@app.example/cb`, dot
 * segments, upper-case hosts and default ports are refused instead of being read one way here and
 * another way by a client, a browser or a proxy.
 */
export function classifyRedirectUri(value: unknown): RedirectKind {
  if (typeof value !== 'string' || !value) {
    throw new InvalidRedirectUri('every redirect URI must be a non-empty string');
  }
  if (value.length > REGISTRATION_LIMITS.uriLength) {
    throw new InvalidRedirectUri(`redirect URIs must be at most ${REGISTRATION_LIMITS.uriLength} characters`);
  }
  // No spaces, controls, bidirectional overrides or other non-ASCII text, which can make a URI read as
  // something it is not; international host names are spelled in punycode.
  if (/[^\x21-\x7e]/.test(value)) {
    throw new InvalidRedirectUri('redirect URIs must be printable ASCII (international host names in punycode)');
  }
  if (value.includes('\\')) {
    throw new InvalidRedirectUri('redirect URIs must not contain a backslash');
  }
  if (value.includes('#')) {
    throw new InvalidRedirectUri('redirect URIs must not contain a fragment');
  }
  const url = URL.parse(value);
  if (!url) throw new InvalidRedirectUri(`${value} is not an absolute URI`);
  const scheme = url.protocol;
  if (scheme !== 'https:' && scheme !== 'http:' && !SINGLE_WORD_SCHEMES.has(scheme) && !REVERSE_DOMAIN_SCHEME.test(scheme)) {
    throw new InvalidRedirectUri(
      `the ${scheme.slice(0, -1)} scheme is not allowed: use https, http on loopback, or a private-use scheme named after your domain (RFC 8252 §7.1), e.g. com.example.app:`,
    );
  }
  if (url.username || url.password) {
    throw new InvalidRedirectUri('redirect URIs must not contain a user name or password');
  }
  if (!isCanonical(value, url)) {
    throw new InvalidRedirectUri(`${value} is not written the way it is read: register it as ${url.href}`);
  }
  if (scheme === 'https:') {
    return LOOPBACK_HOSTS.has(url.hostname) ? 'https-loopback' : 'https';
  }
  if (scheme === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) {
      throw new InvalidRedirectUri('http redirect URIs are allowed only on loopback (localhost, 127.0.0.1, [::1])');
    }
    return 'loopback';
  }
  if (!url.host && !url.pathname) {
    throw new InvalidRedirectUri(`${value} names a scheme and nothing else`);
  }
  return 'custom';
}

/**
 * The URI as given is its own serialisation — except that a bare origin may leave out the "/" that
 * serialisation adds (`https://app.example`), which every parser reads the same way.
 */
function isCanonical(value: string, url: URL): boolean {
  if (url.href === value) return true;
  return url.pathname === '/' && !url.search && url.href === `${value}/`;
}

/**
 * Where a registration's authorization responses can go, for RFC 7592 updates, which may not change it:
 * each https host (with its port), each loopback host name (any port: RFC 8252 §7.3) and each private-use
 * scheme. Paths are free: the host or app that owns them stays the same.
 */
export function redirectTargets(uris: readonly string[]): Set<string> {
  return new Set(
    uris.map((uri) => {
      const url = URL.parse(uri);
      if (!url) return uri;
      if (url.protocol === 'https:') return `https://${url.host}`;
      if (url.protocol === 'http:') return `http://${url.hostname}`;
      return url.protocol;
    }),
  );
}

export function sameRedirectTargets(before: readonly string[], after: readonly string[]): boolean {
  const was = redirectTargets(before);
  const now = redirectTargets(after);
  return was.size === now.size && [...was].every((target) => now.has(target));
}

function filterList(value: unknown, supported: string[], fallback: string[]): string[] {
  if (!Array.isArray(value)) return [...fallback];
  const kept = [...new Set(value.filter((item): item is string => typeof item === 'string' && supported.includes(item)))];
  return kept.length ? kept : [...fallback];
}
