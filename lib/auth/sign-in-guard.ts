// Checks a sign-in and slows password guessing (issue: brute-force protection).
// - Per account: 10 failed attempts in a row lock the account for 15 minutes, even against the right
//   password. The count lives on the person's row, so it holds across instances and an admin can lift it.
// - Per unknown email: the same budget in memory, so that a locked account and an unknown email look alike.
// - Per client address: 30 failures a minute across every account it tries (in memory, per instance).
// Successful sign-ins cost nothing, so people behind one NAT do not lock each other out.
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import { addressKey, FixedWindowLimiter } from '@/lib/rate-limit/fixed-window';
import { normalizeEmail, type AuthenticatedPerson } from '@/lib/people/accounts';
import { verifyPassword } from './passwords';
import { processSingleton } from '@/lib/server/process-singleton';

/** The error next-auth passes back to the sign-in form when the account or address is locked. */
export const TOO_MANY_ATTEMPTS = 'TooManyAttempts';
export const LOCKOUT_AFTER_FAILURES = 10;
export const LOCKOUT_MS = 15 * 60_000;

function limits() {
  return processSingleton('signInLimits', () => ({
    unknownEmail: new FixedWindowLimiter(LOCKOUT_AFTER_FAILURES, LOCKOUT_MS),
    perAddress: new FixedWindowLimiter(30, 60_000),
  }));
}

export type SignInCheck = { ok: true; person: AuthenticatedPerson } | { ok: false; locked: boolean };

/**
 * Unknown email, no password set, disabled account and wrong password all answer the same
 * ({ ok: false, locked: false }) and take the same time.
 */
export async function checkSignIn(emailInput: string, password: string, address: string): Promise<SignInCheck> {
  const email = normalizeEmail(emailInput);
  const { unknownEmail, perAddress } = limits();
  if (perAddress.exhausted(addressKey(address))) return { ok: false, locked: true };

  const person = await db().person.findUnique({ where: { email } });
  if (!person ? unknownEmail.exhausted(email) : person.lockedUntil && person.lockedUntil.getTime() > Date.now()) {
    return { ok: false, locked: true };
  }
  const matches = await verifyPassword(password, person?.passwordHash ?? null);
  if (!person || !matches) {
    perAddress.take(addressKey(address));
    if (person) await recordFailure(person.id, address);
    else unknownEmail.take(email);
    return { ok: false, locked: false };
  }
  if (person.disabledAt) return { ok: false, locked: false };
  if (person.failedSignIns > 0 || person.lockedUntil) {
    await db().person.update({ where: { id: person.id }, data: { failedSignIns: 0, lockedUntil: null } });
  }
  return { ok: true, person: { id: person.id, email: person.email, name: person.name } };
}

/** Counts a failure atomically (parallel guesses cannot slip past the threshold); locks at the threshold. */
async function recordFailure(personId: string, ip: string): Promise<void> {
  await inTransaction(async (tx) => {
    // An expired lock starts a fresh count.
    const [row] = await tx.$queryRaw<{ failed_sign_ins: number; locked: boolean }[]>`
      UPDATE people SET
        failed_sign_ins = CASE WHEN locked_until IS NOT NULL AND locked_until <= now() THEN 1 ELSE failed_sign_ins + 1 END,
        locked_until = CASE
          WHEN locked_until IS NOT NULL AND locked_until > now() THEN locked_until
          WHEN (CASE WHEN locked_until IS NOT NULL AND locked_until <= now() THEN 1 ELSE failed_sign_ins + 1 END) >= ${LOCKOUT_AFTER_FAILURES}
            THEN now() + ${`${LOCKOUT_MS} milliseconds`}::interval
          ELSE NULL END
      WHERE id = ${personId}
      RETURNING failed_sign_ins, (locked_until IS NOT NULL) AS locked`;
    if (row?.locked && row.failed_sign_ins === LOCKOUT_AFTER_FAILURES) {
      await recordAudit({ type: 'person.locked', actorPersonId: null, ip, data: { personId, failures: row.failed_sign_ins } }, tx);
    }
  });
}

/** Lifts a lockout (an admin's action; the caller audits it), in the caller's transaction if any. */
export function clearLockout(personId: string) {
  return db().person.update({ where: { id: personId }, data: { failedSignIns: 0, lockedUntil: null } });
}
