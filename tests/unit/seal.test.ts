import { describe, expect, it } from 'vitest';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';

describe('sealed secrets', () => {
  const secret = 'a-very-long-auth-secret-for-the-tests-0123456789';

  it('open with the key of the same secret and purpose', () => {
    const key = deriveKey(secret, 'key-material');
    const sealed = seal(key, '{"kty":"RSA"}');
    expect(sealed).not.toContain('RSA');
    expect(unseal(deriveKey(secret, 'key-material'), sealed)).toBe('{"kty":"RSA"}');
  });

  it('do not open under another purpose or another secret', () => {
    const sealed = seal(deriveKey(secret, 'key-material'), 'private');
    expect(() => unseal(deriveKey(secret, 'other-purpose'), sealed)).toThrow();
    expect(() => unseal(deriveKey(`${secret}!`, 'key-material'), sealed)).toThrow();
  });

  it('detect tampering', () => {
    const key = deriveKey(secret, 'key-material');
    const bytes = Buffer.from(seal(key, 'private'), 'base64url');
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    expect(() => unseal(key, bytes.toString('base64url'))).toThrow();
  });
});
