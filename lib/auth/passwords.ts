// Password hashing with bcrypt (cost 12). bcrypt reads at most 72 bytes, so longer passwords are
// refused when set and never match when typed: otherwise two passwords sharing 72 bytes would be equal.
import bcrypt from 'bcryptjs';

const COST = 12;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_BYTES = 72;

// Compared against when the email is unknown, so both paths take the same time (no enumeration).
// bcrypt('gatehouse: no such person', 12), precomputed so importing this module costs nothing.
const UNKNOWN_PERSON_HASH = '$2b$12$SO0VmFPq5AIuaWeSqQqKXu/NfK62jN1CU.OTc1CcwUSyaI6.fCIhq';

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new Error(`A password must be at most ${MAX_PASSWORD_BYTES} bytes`);
  }
  return bcrypt.hash(password, COST);
}

/** True when `password` matches `hash`. A null hash (no password set) still costs one comparison. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const tooLong = Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
  const matches = await bcrypt.compare(tooLong ? '' : password, hash ?? UNKNOWN_PERSON_HASH);
  return matches && hash !== null && !tooLong;
}
