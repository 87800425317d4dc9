// Sign-in sessions: one row per browser a person signed in with. The next-auth cookie (a signed JWT)
// carries the row's id, and a cookie is honoured only while its row is live — so a person can see
// where they are signed in and end the other sessions, and a password change or reset ends them too.
import { randomBytes } from 'node:crypto';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';

/** Sessions last at most this long from sign-in, however active (the JWT's rolling expiry is not trusted alone). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often, so that reading a page does not write every time. */
const TOUCH_AFTER_MS = 5 * 60 * 1000;

export type EndReason = 'signed_out' | 'signed_out_elsewhere' | 'password_changed' | 'password_reset' | 'person_disabled';

export async function startSignInSession(personId: string, ip: string | null, userAgent: string | null): Promise<string> {
  const id = randomBytes(24).toString('base64url');
  const now = new Date();
  await db().signInSession.create({
    data: {
      id,
      personId,
      ip,
      userAgent: userAgent?.slice(0, 400) ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    },
  });
  return id;
}

/** True when the session exists, belongs to the person, has not ended and has not expired. */
export async function isLiveSession(sessionId: unknown, personId: string): Promise<boolean> {
  if (typeof sessionId !== 'string' || sessionId.length > 100) return false;
  const session = await db().signInSession.findUnique({ where: { id: sessionId } });
  const now = Date.now();
  if (!session || session.personId !== personId || session.endedAt || session.expiresAt.getTime() <= now) return false;
  if (now - session.lastSeenAt.getTime() > TOUCH_AFTER_MS) {
    await db().signInSession.updateMany({ where: { id: sessionId }, data: { lastSeenAt: new Date(now) } });
  }
  return true;
}

export type SignInSessionView = {
  id: string;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastSeenAt: Date;
};

export async function liveSessionsOf(personId: string): Promise<SignInSessionView[]> {
  return db().signInSession.findMany({
    where: { personId, endedAt: null, expiresAt: { gt: new Date() } },
    select: { id: true, ip: true, userAgent: true, createdAt: true, lastSeenAt: true },
    orderBy: { lastSeenAt: 'desc' },
  });
}

export async function endSignInSession(sessionId: unknown, reason: EndReason): Promise<void> {
  if (typeof sessionId !== 'string') return;
  await db().signInSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { endedAt: new Date(), endReason: reason } });
}

/** Ends every live session of the person except `keep` (none when null), in the caller's transaction if any. */
export async function endSessionsOf(personId: string, keep: string | null, reason: EndReason): Promise<number> {
  const ended = await db().signInSession.updateMany({
    where: { personId, endedAt: null, ...(keep ? { id: { not: keep } } : {}) },
    data: { endedAt: new Date(), endReason: reason },
  });
  return ended.count;
}

export type SessionsOutcome = { ok: true; ended: number } | { ok: false; error: string };

/**
 * "Sign out" of one other session (`target`) or, with null, of every session but `current` (this
 * browser's), from the account page; audited when any ended.
 */
export async function endOtherSessions(personId: string, current: string, target: string | null, ip: string | null): Promise<SessionsOutcome> {
  if (target === current) return { ok: false, error: 'Use "Sign out" to end this session.' };
  const ended = await inTransaction(async (tx) => {
    const count = target ? Number(await endOwnSession(personId, target)) : await endSessionsOf(personId, current, 'signed_out_elsewhere');
    if (count > 0) await recordAudit({ type: 'person.sessions_ended', actorPersonId: personId, ip, data: { count } }, tx);
    return count;
  });
  return { ok: true, ended };
}

/** Ends one of the person's own sessions; another person's session id is ignored. */
export async function endOwnSession(personId: string, sessionId: string): Promise<boolean> {
  const ended = await db().signInSession.updateMany({
    where: { id: sessionId, personId, endedAt: null },
    data: { endedAt: new Date(), endReason: 'signed_out_elsewhere' },
  });
  return ended.count === 1;
}
