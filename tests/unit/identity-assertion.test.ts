// The identity assertion's own serialization (docs/connectors.md, Who is acting): what node:crypto signs
// must verify with jose exactly as an upstream verifies it, for both key types Gatehouse signs with.
import { calculateJwkThumbprint, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { IDENTITY_LIFETIME_SECONDS, IDENTITY_TYP, type IdentityClaims, signedAssertion, signerOf } from '@/lib/connectors/identity-assertion';

const CLAIMS: IdentityClaims = {
  sub: 'person-1',
  email: 'ada@example.test',
  name: 'Ada ⟨é⟩ 漢字',
  org_id: 'org-1',
  org_name: 'Acme',
  role: 'member',
  client_id: 'client-1',
  grant_id: 'grant-1',
  scope: 'mcp:read tool:execute',
};

describe('identity assertion', () => {
  for (const alg of ['ES256', 'RS256'] as const) {
    it(`an ${alg} assertion verifies with jose: typ, issuer, audience, claims, a 60 s lifetime and a fresh jti`, async () => {
      const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(privateKey)), kid: `key-${alg}` };
      const signer = await signerOf(jwk);
      const first = await signedAssertion(signer, 'https://gatehouse.test', 'https://upstream.test/mcp', CLAIMS);
      const second = await signedAssertion(signer, 'https://gatehouse.test', 'https://upstream.test/mcp', CLAIMS);
      const { payload, protectedHeader } = await jwtVerify(first, publicKey, {
        typ: IDENTITY_TYP,
        issuer: 'https://gatehouse.test',
        audience: 'https://upstream.test/mcp',
        algorithms: [alg],
      });
      expect(protectedHeader).toEqual({ alg, kid: `key-${alg}`, typ: IDENTITY_TYP });
      expect(payload).toMatchObject(CLAIMS);
      expect(payload.exp! - payload.iat!).toBe(IDENTITY_LIFETIME_SECONDS);
      const again = await jwtVerify(second, publicKey);
      expect(again.payload.jti).not.toBe(payload.jti);
    });
  }

  it('a key without a kid is named by its RFC 7638 thumbprint, as the JWKS names it', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    const token = await signedAssertion(await signerOf(jwk), 'https://gatehouse.test', 'https://upstream.test/mcp', CLAIMS);
    const { d: _private, ...publicJwk } = jwk;
    expect(decodeProtectedHeader(token).kid).toBe(await calculateJwkThumbprint(publicJwk));
  });

  it('an expired assertion is refused by the verifier', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const token = await signedAssertion(await signerOf(await exportJWK(privateKey)), 'https://gatehouse.test', 'https://upstream.test/mcp', CLAIMS, Date.now() - 120_000);
    await expect(jwtVerify(token, publicKey)).rejects.toThrow(/exp/);
  });

  it('a key of another type is refused', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    await expect(signerOf(await exportJWK(privateKey))).rejects.toThrow(/ES256 and RS256/);
  });
});
