// Signing keys (RS256 and ES256) and cookie keys. Generated once, stored in `key_material` sealed with
// AUTH_SECRET, and loaded by every instance so they all sign and verify alike — or given in the
// environment (OAUTH_SIGNING_KEYS, OAUTH_COOKIE_KEYS), which then wins.
//
// Rotation (`npm run keys:rotate`, or the instance admin's Keys page) adds new keys and retires the
// current ones. The newest keys sign; a retired signing key stays published in the JWKS until every token
// it signed has expired, and a retired cookie key keeps verifying cookies until the sessions it signed
// have expired. Running instances notice the change within KEY_RELOAD_SECONDS (see provider.ts).
import { generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import { type ChangedBy, recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import type { KeyUse } from '@/lib/generated/prisma/enums';

const PURPOSE = 'key-material';
/** ID tokens live an hour and provider sessions 12 hours; a day also covers instances restarted late. */
const RETIRED_SIGNING_KEY_KEPT_MS = 24 * 60 * 60 * 1000;
const RETIRED_COOKIE_KEY_KEPT_MS = 24 * 60 * 60 * 1000;

/** `version` names the set of keys: when the stored set changes, so does it (see provider.ts). */
export type ProviderKeys = { signing: JsonWebKey[]; cookies: string[]; version: string };

type Algorithm = 'RS256' | 'ES256' | 'HS256';
const KINDS: { use: KeyUse; algorithm: Algorithm }[] = [
  { use: 'signing', algorithm: 'RS256' },
  { use: 'signing', algorithm: 'ES256' },
  { use: 'cookie', algorithm: 'HS256' },
];

// Fixed ids for the first keys: instances that start together insert the same rows, and the database
// keeps exactly one of each (later keys, from rotation, get fresh ids).
const INITIAL_IDS: Record<Algorithm, string> = { RS256: 'initial-rs256', ES256: 'initial-es256', HS256: 'initial-cookie' };

export async function loadProviderKeys(): Promise<ProviderKeys> {
  const fromEnvironment = keysFromEnvironment();
  if (fromEnvironment) return fromEnvironment;
  const key = deriveKey(env().authSecret, PURPOSE);
  let rows = await usableRows();
  if (!rows.some((row) => row.retiredAt === null)) {
    await db().keyMaterial.createMany({
      data: KINDS.map(({ use, algorithm }) => ({
        id: INITIAL_IDS[algorithm],
        use,
        algorithm,
        encrypted: seal(key, generate(INITIAL_IDS[algorithm], algorithm)),
      })),
      skipDuplicates: true,
    });
    rows = await usableRows();
  }
  const open = (encrypted: string) => {
    try {
      return unseal(key, encrypted);
    } catch {
      throw new Error('The stored key material cannot be decrypted: AUTH_SECRET is not the one it was sealed with.');
    }
  };
  // Active keys first: the provider signs with the first key of each algorithm.
  const ordered = [...rows].sort((a, b) => Number(a.retiredAt !== null) - Number(b.retiredAt !== null));
  return {
    signing: ordered.filter((row) => row.use === 'signing').map((row) => JSON.parse(open(row.encrypted)) as JsonWebKey),
    cookies: ordered.filter((row) => row.use === 'cookie').map((row) => open(row.encrypted)),
    version: versionOf(rows),
  };
}

/**
 * The version of the keys an instance would load now, read without decrypting anything: it changes
 * with a rotation, and when a retired key ages out of the JWKS.
 */
export async function storedKeysVersion(): Promise<string> {
  return keysFromEnvironment()?.version ?? versionOf(await usableRows());
}

export type KeyRotation = ChangedBy;

/** Adds a new key of each kind and retires the current ones, audited. Returns the new key ids. */
export async function rotateKeys(rotation: KeyRotation): Promise<string[]> {
  const key = deriveKey(env().authSecret, PURPOSE);
  const created = KINDS.map(({ use, algorithm }) => {
    const id = `${algorithm.toLowerCase()}-${randomUUID()}`;
    return { id, use, algorithm, encrypted: seal(key, generate(id, algorithm)) };
  });
  const ids = created.map((row) => row.id);
  await inTransaction(async (tx) => {
    const retired = await tx.keyMaterial.updateMany({ where: { retiredAt: null }, data: { retiredAt: new Date() } });
    await tx.keyMaterial.createMany({ data: created });
    await recordAudit({ type: 'keys.rotated', actorPersonId: rotation.actorPersonId, ip: rotation.ip, data: { newKeyIds: ids, retired: retired.count, via: rotation.via } }, tx);
  });
  return ids;
}

/**
 * Re-seals every stored key with `newSecret` (AUTH_SECRET rotation), in one transaction: all rows or
 * none. The keys themselves do not change, so tokens, the JWKS and cookies keep working; only the secret
 * that protects them at rest does. Throws, changing nothing, when the current secret does not open them.
 */
export async function resealKeys(currentSecret: string, newSecret: string): Promise<number> {
  const current = deriveKey(currentSecret, PURPOSE);
  const next = deriveKey(newSecret, PURPOSE);
  return inTransaction(async (tx) => {
    const rows = await tx.keyMaterial.findMany({ select: { id: true, encrypted: true } });
    for (const row of rows) {
      let plaintext: string;
      try {
        plaintext = unseal(current, row.encrypted);
      } catch {
        throw new Error(`Key ${row.id} cannot be decrypted with the current AUTH_SECRET: nothing was changed.`);
      }
      await tx.keyMaterial.update({ where: { id: row.id }, data: { encrypted: seal(next, plaintext) } });
    }
    await recordAudit({ type: 'auth_secret.rotated', actorPersonId: null, ip: null, data: { keys: rows.length, via: 'cli' } }, tx);
    return rows.length;
  });
}

export type KeyView = {
  id: string;
  use: KeyUse;
  algorithm: string;
  createdAt: Date | null;
  retiredAt: Date | null;
  /** Signing keys: listed in the JWKS. Cookie keys: still verifying cookies. */
  stillUsed: boolean;
  /** When a retired key stops being published or verifying. */
  droppedAt: Date | null;
};

export type KeyOverview = { source: 'database' | 'environment'; keys: KeyView[] };

/** The keys for the instance admin's Keys page: the usable ones and the most recent retired ones. */
export async function keyOverview(): Promise<KeyOverview> {
  const { signingKeys, cookieKeys } = env();
  if (signingKeys && cookieKeys) {
    return {
      source: 'environment',
      keys: signingKeys.map((jwk, index) => ({
        id: String(jwk.kid ?? `signing key ${index + 1}`),
        use: 'signing' as const,
        algorithm: String(jwk.alg ?? (jwk.kty === 'EC' ? 'ES256' : 'RS256')),
        createdAt: null,
        retiredAt: null,
        stillUsed: true,
        droppedAt: null,
      })),
    };
  }
  const rows = await db().keyMaterial.findMany({
    select: { id: true, use: true, algorithm: true, createdAt: true, retiredAt: true },
    orderBy: { createdAt: 'desc' },
    take: 30,
  });
  const now = Date.now();
  return {
    source: 'database',
    keys: rows.map((row) => {
      const droppedAt = row.retiredAt ? new Date(row.retiredAt.getTime() + keptFor(row.use)) : null;
      return { ...row, stillUsed: !droppedAt || droppedAt.getTime() > now, droppedAt };
    }),
  };
}

function keptFor(use: KeyUse): number {
  return use === 'signing' ? RETIRED_SIGNING_KEY_KEPT_MS : RETIRED_COOKIE_KEY_KEPT_MS;
}

function usableRows() {
  const now = Date.now();
  return db().keyMaterial.findMany({
    where: {
      OR: [{ retiredAt: null }, { use: 'signing', retiredAt: { gt: new Date(now - RETIRED_SIGNING_KEY_KEPT_MS) } }, { use: 'cookie', retiredAt: { gt: new Date(now - RETIRED_COOKIE_KEY_KEPT_MS) } }],
    },
    orderBy: { createdAt: 'desc' },
  });
}

function versionOf(rows: { id: string; retiredAt: Date | null }[]): string {
  return rows
    .map((row) => `${row.id}@${row.retiredAt?.getTime() ?? 'active'}`)
    .sort()
    .join(',');
}

function keysFromEnvironment(): ProviderKeys | null {
  const { signingKeys, cookieKeys } = env();
  if (!signingKeys || !cookieKeys) return null;
  return { signing: signingKeys as JsonWebKey[], cookies: cookieKeys, version: 'environment' };
}

function generate(kid: string, algorithm: Algorithm): string {
  if (algorithm === 'HS256') return randomBytes(32).toString('base64url');
  const pair = algorithm === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify({ ...pair.privateKey.export({ format: 'jwk' }), kid, alg: algorithm, use: 'sig' });
}
