import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from '@/lib/auth/passwords';

describe('passwords', () => {
  it('are stored as bcrypt hashes that verify only the right password', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$2[aby]\$12\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('never match when no password is set', async () => {
    expect(await verifyPassword('anything at all', null)).toBe(false);
  });

  it('refuse more than 72 bytes, which bcrypt would silently cut', async () => {
    const long = 'a'.repeat(80);
    expect(passwordProblem(long)).toMatch(/72 bytes/);
    await expect(hashPassword(long)).rejects.toThrow(/72 bytes/);
    const hash = await hashPassword('a'.repeat(72));
    expect(await verifyPassword(long, hash)).toBe(false);
  });

  it('must be at least 12 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('long enough pass')).toBeNull();
  });
});
