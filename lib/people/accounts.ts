// People and their organizations: creating accounts, checking credentials, reading who someone is.
import { db } from '@/lib/db/client';
import type { MembershipStatus, PlanStatus, Role } from '@/lib/generated/prisma/enums';
import { hashPassword, passwordProblem, verifyPassword } from '@/lib/auth/passwords';
import { recordAudit } from '@/lib/audit/events';
import { assertOrgSlug } from './org-slugs';
import { endSessionsOf } from '@/lib/auth/sign-in-sessions';
import { inTransaction } from '@/lib/db/transaction';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type AuthenticatedPerson = { id: string; email: string; name: string };

export type PersonOverview = {
  id: string;
  email: string;
  name: string;
  isInstanceAdmin: boolean;
  organizations: {
    id: string;
    slug: string;
    name: string;
    role: Role;
    membershipStatus: MembershipStatus;
    planStatus: PlanStatus;
  }[];
};

/** Who a signed-in person is, read fresh; null when the account no longer exists or is disabled. */
export async function personOverview(personId: string): Promise<PersonOverview | null> {
  const person = await db().person.findUnique({
    where: { id: personId },
    include: { memberships: { include: { org: true }, orderBy: { org: { name: 'asc' } } } },
  });
  if (!person || person.disabledAt) return null;
  return {
    id: person.id,
    email: person.email,
    name: person.name,
    isInstanceAdmin: person.isInstanceAdmin,
    organizations: person.memberships.map((membership) => ({
      id: membership.org.id,
      slug: membership.org.slug,
      name: membership.org.name,
      role: membership.role,
      membershipStatus: membership.status,
      planStatus: membership.org.planStatus,
    })),
  };
}

export type NewOwner = { email: string; name: string; password: string; orgName: string; orgSlug: string };

/** Creates an instance admin who owns a new organization (the first person of a real installation). */
export async function createOwner(input: NewOwner) {
  assertOrgSlug(input.orgSlug);
  const passwordHash = await hashPassword(input.password);
  return db().$transaction(async (tx) => {
    const person = await tx.person.create({
      data: { email: normalizeEmail(input.email), name: input.name, passwordHash, isInstanceAdmin: true },
    });
    const org = await tx.organization.create({ data: { name: input.orgName, slug: input.orgSlug } });
    await tx.membership.create({ data: { personId: person.id, orgId: org.id, role: 'owner' } });
    await tx.auditEvent.create({
      data: { type: 'person.created', orgId: org.id, actorPersonId: person.id, data: { via: 'create-owner' } },
    });
    return { person, org };
  });
}

export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
}

export type PasswordChange = { ok: true } | { ok: false; field: 'current' | 'next' | 'confirm'; error: string };

/** Changes a person's password; the current one is required. Their other sign-in sessions end. */
export async function changePassword(personId: string, keepSessionId: string, current: string, next: string, confirm: string): Promise<PasswordChange> {
  const person = await db().person.findUnique({ where: { id: personId } });
  if (!person || !(await verifyPassword(current, person.passwordHash))) {
    return { ok: false, field: 'current', error: 'The current password is not correct.' };
  }
  const problem = passwordProblem(next);
  if (problem) return { ok: false, field: 'next', error: `The new password ${problem}.` };
  if (next !== confirm) return { ok: false, field: 'confirm', error: 'The two new passwords differ.' };
  const passwordHash = await hashPassword(next);
  await inTransaction(async (tx) => {
    await tx.person.update({ where: { id: personId }, data: { passwordHash } });
    // Whoever else knew the old password is signed out with it.
    const ended = await endSessionsOf(personId, keepSessionId, 'password_changed');
    await recordAudit({ type: 'person.password_changed', actorPersonId: personId, data: { sessionsEnded: ended } }, tx);
  });
  return { ok: true };
}
