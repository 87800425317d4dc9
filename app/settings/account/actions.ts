'use server';

import { headers } from 'next/headers';
import { z } from 'zod';
import { recordAudit } from '@/lib/audit/events';
import { currentSignIn } from '@/lib/auth/session';
import { endOwnSession, endSessionsOf } from '@/lib/auth/sign-in-sessions';
import { inTransaction } from '@/lib/db/transaction';
import { clientAddress } from '@/lib/http/client-address';
import { changePassword, type PasswordChange } from '@/lib/people/accounts';

const SIGNED_OUT = 'Your session has ended: sign in again.';

export async function changePasswordAction(_previous: PasswordChange | null, form: FormData): Promise<PasswordChange> {
  const signIn = await currentSignIn();
  if (!signIn) return { ok: false, field: 'current', error: SIGNED_OUT };
  const field = (name: string) => String(form.get(name) ?? '').slice(0, 1024);
  return changePassword(signIn.person.id, signIn.sessionId, field('current'), field('next'), field('confirm'));
}

export type SessionsOutcome = { ok: true; ended: number } | { ok: false; error: string };

/** Ends one other session (`sessionId`) or, with null, every session but this browser's. */
export async function endSessionsAction(sessionId: string | null): Promise<SessionsOutcome> {
  const signIn = await currentSignIn();
  if (!signIn) return { ok: false, error: SIGNED_OUT };
  const target = z.string().min(1).max(100).nullable().safeParse(sessionId);
  if (!target.success) return { ok: false, error: 'Unknown session.' };
  if (target.data === signIn.sessionId) return { ok: false, error: 'Use "Sign out" to end this session.' };
  const ip = clientAddress(await headers());
  const ended = await inTransaction(async (tx) => {
    const count = target.data
      ? Number(await endOwnSession(signIn.person.id, target.data))
      : await endSessionsOf(signIn.person.id, signIn.sessionId, 'signed_out_elsewhere');
    if (count > 0) await recordAudit({ type: 'person.sessions_ended', actorPersonId: signIn.person.id, ip, data: { count } }, tx);
    return count;
  });
  return { ok: true, ended };
}
