// Confidential clients' secrets are stored only as sha256 hashes. The provider generates a high-entropy
// secret, returns it once in the registration response, and from then on sees only the hash (as a
// placeholder `client_secret` that satisfies its schema); comparison hashes what the client presents.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';

const PREFIX = 'sha256$';

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

export function hashClientSecretInPayload(payload: AdapterPayload): AdapterPayload {
  const secret = payload.client_secret;
  if (typeof secret !== 'string' || secret.startsWith(PREFIX)) return payload;
  return { ...payload, client_secret: `${PREFIX}${digest(secret)}` };
}

/** Compares a presented secret with the stored one (hashed, or still plain before the first save). */
export function clientSecretMatches(stored: string | undefined, presented: string): boolean {
  if (!stored || typeof presented !== 'string') return false;
  const expected = stored.startsWith(PREFIX) ? stored : `${PREFIX}${digest(stored)}`;
  const actual = Buffer.from(`${PREFIX}${digest(presented)}`);
  const wanted = Buffer.from(expected);
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

export function isHashedSecret(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(PREFIX);
}
