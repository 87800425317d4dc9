// One-time, expiring links to set a password: an invitation (the first password of an account an admin
// created) or a reset. The token is 32 random bytes, shown once; only its SHA-256 is stored, so a copy of
// the database opens no account.
import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '@/lib/audit/events';
import { hashPassword, passwordProblem } from '@/lib/auth/passwords';
import { clearLockout } from '@/lib/auth/sign-in-guard';
import { endSessionsOf } from '@/lib/auth/sign-in-sessions';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import type { PasswordLinkPurpose } from '@/lib/generated/prisma/enums';

/** An invitation may wait out a weekend or a holiday. */
export const INVITE_LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A reset is asked for by someone waiting for it now; a short life limits what a leaked link is worth. */
export const RESET_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export type IssuedLink = { purpose: PasswordLinkPurpose; url: string; expiresAt: Date };

export type NewLink = { personId: string; purpose: PasswordLinkPurpose; orgId: string; createdById: string };

/** Creates a link in the caller's transaction (which audits it); the person's earlier unused links stop working. */
export async function createPasswordLink(tx: Tx, link: NewLink): Promise<IssuedLink> {
  const now = new Date();
  await expireUnusedLinks(tx, { personId: link.personId }, now);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + (link.purpose === 'invite' ? INVITE_LINK_LIFETIME_MS : RESET_LINK_LIFETIME_MS));
  await tx.passwordLink.create({ data: { tokenHash: tokenHash(token), ...link, createdAt: now, expiresAt } });
  return { purpose: link.purpose, url: `${env().publicUrl}/set-password/${token}`, expiresAt };
}

/** Makes unused links stop working (superseded, or their org membership removed). */
export async function expireUnusedLinks(tx: Tx, where: { personId: string; orgId?: string }, now = new Date()): Promise<void> {
  await tx.passwordLink.updateMany({ where: { ...where, usedAt: null, expiresAt: { gt: now } }, data: { expiresAt: now } });
}

export type LinkView = { state: 'valid'; purpose: PasswordLinkPurpose; name: string; email: string; expiresAt: Date } | { state: 'used' | 'expired' | 'unknown' };

/** What the set-password page shows for a token. */
export async function describePasswordLink(token: string): Promise<LinkView> {
  if (!TOKEN.test(token)) return { state: 'unknown' };
  const link = await db().passwordLink.findUnique({
    where: { tokenHash: tokenHash(token) },
    include: { person: { select: { name: true, email: true, disabledAt: true } } },
  });
  if (!link || link.person.disabledAt) return { state: 'unknown' };
  if (link.usedAt) return { state: 'used' };
  if (link.expiresAt.getTime() <= Date.now()) return { state: 'expired' };
  return { state: 'valid', purpose: link.purpose, name: link.person.name, email: link.person.email, expiresAt: link.expiresAt };
}

export type PasswordSet = { ok: true; email: string } | { ok: false; field: 'link' | 'password' | 'confirm'; error: string };

const LINK_GONE = 'This link no longer works: it was used, it expired, or a newer one replaced it. Ask an admin for a new link.';

/**
 * Sets the password through a link, once: the link is claimed atomically (a second use, even a parallel
 * one, finds it used), the lockout is lifted, and every browser signed in to the account is signed out.
 */
export async function usePasswordLink(token: string, password: string, confirm: string, ip: string | null): Promise<PasswordSet> {
  const problem = passwordProblem(password);
  if (problem) return { ok: false, field: 'password', error: `The password ${problem}.` };
  if (password !== confirm) return { ok: false, field: 'confirm', error: 'The two passwords differ.' };
  // Checked before hashing too, so a dead link costs no bcrypt round.
  if ((await describePasswordLink(token)).state !== 'valid') return { ok: false, field: 'link', error: LINK_GONE };
  const passwordHash = await hashPassword(password); // outside the transaction: it is slow
  const email = await inTransaction(async (tx) => {
    const now = new Date();
    const hash = tokenHash(token);
    const claimed = await tx.passwordLink.updateMany({
      where: { tokenHash: hash, usedAt: null, expiresAt: { gt: now }, person: { disabledAt: null } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) return null;
    const link = await tx.passwordLink.findUniqueOrThrow({ where: { tokenHash: hash }, include: { person: true } });
    await tx.person.update({ where: { id: link.personId }, data: { passwordHash } });
    await clearLockout(link.personId);
    await expireUnusedLinks(tx, { personId: link.personId }, now);
    const sessionsEnded = await endSessionsOf(link.personId, null, 'password_reset');
    await recordAudit(
      {
        type: 'person.password_set',
        orgId: link.orgId,
        actorPersonId: link.personId,
        ip,
        data: { personId: link.personId, purpose: link.purpose, linkCreatedById: link.createdById, sessionsEnded },
      },
      tx,
    );
    return link.person.email;
  });
  return email ? { ok: true, email } : { ok: false, field: 'link', error: LINK_GONE };
}
