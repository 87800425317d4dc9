// Slows password guessing: after 10 failed attempts in a minute on one account, or 30 from one client
// address (across every account it tries), sign-in is refused for the rest of the minute — even with
// the right password. Successful sign-ins cost nothing: people behind one NAT are not locked out by
// each other's logins.
import { addressKey, FixedWindowLimiter } from '@/lib/rate-limit/fixed-window';

export const TOO_MANY_ATTEMPTS = 'TooManyAttempts';

const holder = globalThis as unknown as { gatehouseSignInLimits?: { perAccount: FixedWindowLimiter; perAddress: FixedWindowLimiter } };

function limits() {
  holder.gatehouseSignInLimits ??= {
    perAccount: new FixedWindowLimiter(10, 60_000),
    perAddress: new FixedWindowLimiter(30, 60_000),
  };
  return holder.gatehouseSignInLimits;
}

/** True when this attempt may go ahead. */
export function mayAttemptSignIn(email: string, address: string): boolean {
  const { perAccount, perAddress } = limits();
  return !perAddress.exhausted(addressKey(address)) && !perAccount.exhausted(normalize(email));
}

export function recordFailedSignIn(email: string, address: string): void {
  const { perAccount, perAddress } = limits();
  perAddress.take(addressKey(address));
  perAccount.take(normalize(email));
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}
