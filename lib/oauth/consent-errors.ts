// The messages the consent screen shows when its form comes back (`/consent/<uid>?error=<code>`). The
// code is read from the URL, which anyone can write: an unknown one — `__proto__` and every other name
// objects inherit included — shows no message.
import { ownValue } from '@/lib/own-keys';

const MESSAGES = {
  scope: 'Tick at least one of the boxes below to allow access.',
  org: 'Pick an organization where this app may be connected.',
} as const;

export type ConsentErrorCode = keyof typeof MESSAGES;

export function consentErrorMessage(code: string | null): string | null {
  return code ? (ownValue(MESSAGES, code) ?? null) : null;
}
