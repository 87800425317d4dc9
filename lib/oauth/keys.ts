// Signing keys (RS256 and ES256) and cookie keys: generated once, stored in `key_material` sealed with
// AUTH_SECRET, and loaded by every instance so they all sign and verify alike.
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { db } from '@/lib/db/client';
import { env } from '@/lib/env';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';

const PURPOSE = 'key-material';

export type ProviderKeys = { signing: JsonWebKey[]; cookies: string[] };

// Fixed ids for the first keys: instances that start together insert the same rows, and the database
// keeps exactly one of each (later keys, from rotation, get fresh ids).
const INITIAL = [
  { id: 'initial-rs256', use: 'signing', algorithm: 'RS256' },
  { id: 'initial-es256', use: 'signing', algorithm: 'ES256' },
  { id: 'initial-cookie', use: 'cookie', algorithm: 'HS256' },
] as const;

export async function loadProviderKeys(): Promise<ProviderKeys> {
  const key = deriveKey(env().authSecret, PURPOSE);
  let rows = await db().keyMaterial.findMany({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
  if (rows.length === 0) {
    await db().keyMaterial.createMany({
      data: INITIAL.map((spec) => ({ ...spec, encrypted: seal(key, generate(spec.id, spec.algorithm)) })),
      skipDuplicates: true,
    });
    rows = await db().keyMaterial.findMany({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
  }
  const open = (encrypted: string) => {
    try {
      return unseal(key, encrypted);
    } catch {
      throw new Error('The stored key material cannot be decrypted: AUTH_SECRET is not the one it was sealed with.');
    }
  };
  return {
    signing: rows.filter((row) => row.use === 'signing').map((row) => JSON.parse(open(row.encrypted)) as JsonWebKey),
    cookies: rows.filter((row) => row.use === 'cookie').map((row) => open(row.encrypted)),
  };
}

function generate(kid: string, algorithm: 'RS256' | 'ES256' | 'HS256'): string {
  if (algorithm === 'HS256') return randomBytes(32).toString('base64url');
  const pair =
    algorithm === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify({ ...pair.privateKey.export({ format: 'jwk' }), kid, alg: algorithm, use: 'sig' });
}
