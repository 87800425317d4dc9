// The identity assertion (docs/connectors.md, Who is acting): every call Gatehouse forwards to a connector
// carries a short-lived JWT that says on whose behalf — the person, the organization, the app and the
// connection, with its scopes — signed with Gatehouse's own signing keys, so that an upstream can verify it
// at /oauth/jwks and act as that person. It is not the caller's token (which never leaves Gatehouse): it
// is made for one connector (`aud` is its URL), lives 60 s, and has a `jti` an upstream may refuse twice.
//
// Its `typ` is its own (RFC 8725 §3.11, explicit typing): ID tokens are signed with the same keys and also
// carry `sub`, so an upstream that checks `typ` cannot be handed an ID token, or this for an ID token.
import { createPrivateKey, type JsonWebKey, type KeyObject, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { env } from '@/lib/env';
import type { Caller } from '@/lib/mcp/caller';
import { currentSigningKeys } from '@/lib/oauth/provider';

/** The request header the assertion is sent in. */
export const IDENTITY_HEADER = 'Gatehouse-Identity';
/** Its JOSE `typ` (RFC 8725 §3.11). */
export const IDENTITY_TYP = 'gatehouse-identity+jwt';
/** How long it is valid: long enough for one call, not for a replay later. */
export const IDENTITY_LIFETIME_SECONDS = 60;

/** What an upstream reads from the assertion, beside iss, aud, iat, exp and jti. */
export type IdentityClaims = {
  /** The person (Gatehouse's id for them, stable). */
  sub: string;
  email: string;
  name: string;
  /** The organization the grant was given in, and the person's role there now. */
  org_id: string;
  org_name: string;
  role: string;
  /** The app (OAuth client) and the connection (grant) the call came through. */
  client_id: string;
  grant_id: string;
  /** The scopes of the connection, space-separated (RFC 9068 §2.2.3). */
  scope: string;
};

export type Signer = { kid: string; alg: 'ES256' | 'RS256'; key: KeyObject };
const signers = new WeakMap<JsonWebKey, Promise<Signer>>();

/** The assertion for one forwarded call of `caller`'s to the connector at `audience`. */
export async function identityAssertion(caller: Caller, audience: string): Promise<string> {
  const claims: IdentityClaims = {
    sub: caller.personId,
    email: caller.personEmail,
    name: caller.personName,
    org_id: caller.orgId,
    org_name: caller.orgName,
    role: caller.role,
    client_id: caller.clientId,
    grant_id: caller.grantId,
    scope: caller.scopes.join(' '),
  };
  return signedAssertion(await currentSigner(), env().publicUrl, audience, claims);
}

/**
 * The JWT in its compact serialization (RFC 7515 §7.1, RFC 7519 §7.1), signed with node:crypto. jose builds
 * JWTs through WebCrypto only, whose asynchronous sign costs several times this one on every forwarded call
 * (docs/performance.md); jose still verifies them in the tests, as an upstream would.
 *
 * Signed on libuv's threadpool (node:crypto's sign with a callback), not on the event loop: an ECDSA
 * signature measured about 25 µs in a loop but about 95 µs inside the server under load, where the other
 * work between two calls has evicted the curve's precomputed tables from the CPU's caches. The pool's
 * thread does little else, so its caches stay warm, and the event loop is free for other requests meanwhile.
 */
export async function signedAssertion(signer: Signer, issuer: string, audience: string, claims: IdentityClaims, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header = { alg: signer.alg, kid: signer.kid, typ: IDENTITY_TYP };
  const payload = { ...claims, iss: issuer, aud: audience, iat, exp: iat + IDENTITY_LIFETIME_SECONDS, jti: randomUUID() };
  const input = `${base64url(header)}.${base64url(payload)}`;
  // ES256 signatures are the raw r ‖ s pair (RFC 7518 §3.4), not DER; RS256 is PKCS #1 v1.5 with SHA-256 (§3.3).
  const key = signer.alg === 'ES256' ? { key: signer.key, dsaEncoding: 'ieee-p1363' as const } : signer.key;
  const signature = await new Promise<Buffer>((resolve, reject) => {
    sign('sha256', Buffer.from(input), key, (error, signed) => (error ? reject(error) : resolve(signed)));
  });
  return `${input}.${signature.toString('base64url')}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The signer of a private JWK (ES256 or RS256), with the kid the JWKS publishes for it. */
export async function signerOf(jwk: JsonWebKey): Promise<Signer> {
  const alg = algorithmOf(jwk);
  if (!alg) throw new Error('Only ES256 and RS256 keys sign identity assertions.');
  // The kid the JWKS publishes: the key's own, or (as the provider does) its RFC 7638 thumbprint.
  const kid = typeof jwk.kid === 'string' ? jwk.kid : await calculateJwkThumbprint(jwk as JWK);
  return { kid, alg, key: createPrivateKey({ key: jwk, format: 'jwk' }) };
}

/**
 * The key to sign with: the provider's current ES256 key (RS256 when only RSA keys are configured), the
 * first of its algorithm as the provider's own. A rotation changes it on the next call.
 */
async function currentSigner(): Promise<Signer> {
  const keys = await currentSigningKeys();
  const jwk = keys.find((key) => algorithmOf(key) === 'ES256') ?? keys.find((key) => algorithmOf(key) === 'RS256');
  if (!jwk) throw new Error('No ES256 or RS256 signing key is loaded.');
  // Keyed by the JWK object: a rotation loads new key objects, and with them a new signer.
  let signer = signers.get(jwk);
  if (!signer) {
    signer = signerOf(jwk);
    signers.set(jwk, signer);
    signer.catch(() => signers.delete(jwk));
  }
  return signer;
}

function algorithmOf(key: JsonWebKey): 'ES256' | 'RS256' | null {
  const alg = (key as { alg?: unknown }).alg;
  if (alg === 'ES256' || (alg === undefined && key.kty === 'EC' && key.crv === 'P-256')) return 'ES256';
  if (alg === 'RS256' || (alg === undefined && key.kty === 'RSA')) return 'RS256';
  return null;
}
