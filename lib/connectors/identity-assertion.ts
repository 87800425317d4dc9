// The identity assertion (docs/connectors.md, Who is acting): every call Gatehouse forwards to a connector
// carries a short-lived JWT that says on whose behalf — the person, the organization, the app and the
// connection, with its scopes — signed with Gatehouse's own signing keys, so that an upstream can verify it
// at /oauth/jwks and act as that person. It is not the caller's token (which never leaves Gatehouse): it
// is made for one connector (`aud` is its URL), lives 60 s, and has a `jti` an upstream may refuse twice.
//
// Its `typ` is its own (RFC 8725 §3.11, explicit typing): ID tokens are signed with the same keys and also
// carry `sub`, so an upstream that checks `typ` cannot be handed an ID token, or this for an ID token.
import { randomUUID, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from 'jose';
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

type Signer = { kid: string; alg: 'ES256' | 'RS256'; key: CryptoKey | Uint8Array };
const signers = new Map<string, Promise<Signer>>();

/** The assertion for one forwarded call of `caller`'s to the connector at `audience`. */
export async function identityAssertion(caller: Caller, audience: string): Promise<string> {
  const signer = await currentSigner();
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
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: IDENTITY_TYP })
    .setIssuer(env().publicUrl)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${IDENTITY_LIFETIME_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
}

/**
 * The key to sign with: the provider's current ES256 key (RS256 when only RSA keys are configured), the
 * first of its algorithm as the provider's own. A rotation changes it on the next call.
 */
async function currentSigner(): Promise<Signer> {
  const keys = await currentSigningKeys();
  const jwk = keys.find((key) => algorithmOf(key) === 'ES256') ?? keys.find((key) => algorithmOf(key) === 'RS256');
  if (!jwk) throw new Error('No ES256 or RS256 signing key is loaded.');
  // The kid the JWKS publishes: the key's own, or (as the provider does) its RFC 7638 thumbprint.
  const kid = typeof jwk.kid === 'string' ? jwk.kid : await calculateJwkThumbprint(jwk as JWK);
  let signer = signers.get(kid);
  if (!signer) {
    const alg = algorithmOf(jwk)!;
    signer = importJWK(jwk as JWK, alg).then((key) => ({ kid, alg, key }));
    signers.set(kid, signer);
    signer.catch(() => signers.delete(kid));
  }
  return signer;
}

function algorithmOf(key: JsonWebKey): 'ES256' | 'RS256' | null {
  const alg = (key as { alg?: unknown }).alg;
  if (alg === 'ES256' || (alg === undefined && key.kty === 'EC' && key.crv === 'P-256')) return 'ES256';
  if (alg === 'RS256' || (alg === undefined && key.kty === 'RSA')) return 'RS256';
  return null;
}
