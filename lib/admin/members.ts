// An org's members, for its owners and admins (SPEC §7, issue: Members): list them; add someone who has an
// account or invite someone who has none; change a role; deactivate (their apps get 403 on the next /mcp
// call, grants kept) or reactivate; remove (their grants in the org revoked); make a one-time
// set-password link; lift a sign-in lockout. The rules live in member-rules.ts; each change is audited in
// its own transaction.
import { recordAudit } from '@/lib/audit/events';
import { clearLockout } from '@/lib/auth/sign-in-guard';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { MembershipStatus, Role } from '@/lib/generated/prisma/enums';
import { Prisma } from '@/lib/generated/prisma/client';
import { revokeGrantsWhere } from '@/lib/grants/revoke';
import { normalizeEmail } from '@/lib/people/accounts';
import { deliverPasswordLink } from '@/lib/people/link-delivery';
import { createPasswordLink, expireUnusedLinks, type IssuedLink } from '@/lib/people/password-links';
import type { OrgAdmin } from './access';
import { conflict, forbidden } from './errors';
import {
  actingAdmin,
  keepAnActiveOwner,
  lockOrgMemberships,
  requireResetAllowed,
  requireStanding,
  targetMembership,
  type Acting,
  type Target,
} from './member-rules';

export type MemberRow = {
  membershipId: string;
  personId: string;
  name: string;
  email: string;
  role: Role;
  status: MembershipStatus;
  /** The person has not set a password yet (an invitation not taken up). */
  invited: boolean;
  isInstanceAdmin: boolean;
  lockedUntil: Date | null;
  joinedAt: Date;
  liveGrants: number;
};

export async function listMembers(orgId: string): Promise<MemberRow[]> {
  const [memberships, grants] = await Promise.all([
    db().membership.findMany({ where: { orgId }, include: { person: true }, orderBy: [{ person: { name: 'asc' } }, { createdAt: 'asc' }], take: 1000 }),
    db().grant.groupBy({ by: ['personId'], where: { orgId, revokedAt: null }, _count: { _all: true } }),
  ]);
  const liveGrants = new Map(grants.map((row) => [row.personId, row._count._all]));
  const now = Date.now();
  return memberships.map(({ id, role, status, createdAt, person }) => ({
    membershipId: id,
    personId: person.id,
    name: person.name,
    email: person.email,
    role,
    status,
    invited: person.passwordHash === null,
    isInstanceAdmin: person.isInstanceAdmin,
    lockedUntil: person.lockedUntil && person.lockedUntil.getTime() > now ? person.lockedUntil : null,
    joinedAt: createdAt,
    liveGrants: liveGrants.get(person.id) ?? 0,
  }));
}

/** A set-password link as the admin sees it, once. */
export type ShownLink = { purpose: IssuedLink['purpose']; url: string; expiresAt: string; emailed: boolean };

export type NewMember = { email: string; role: Role; name?: string };

export type AddOutcome =
  | { kind: 'added'; name: string; membershipId: string }
  /** No account has this email: the admin is asked for the person's name to invite them. */
  | { kind: 'needs_name'; email: string }
  | { kind: 'invited'; name: string; membershipId: string; link: ShownLink };

type Change<T> = (tx: Tx, acting: Acting, target: Target) => Promise<T>;

/** Runs a change to one membership of the admin's org under the org's lock, with the rules every change shares. */
function changeMembership<T>(admin: OrgAdmin, membershipId: string, change: Change<T>): Promise<T> {
  return inTransaction(async (tx) => {
    await lockOrgMemberships(tx, admin.org.id);
    const acting = await actingAdmin(tx, admin);
    const target = await targetMembership(tx, admin.org.id, membershipId);
    return change(tx, acting, target);
  });
}

function audit(tx: Tx, admin: OrgAdmin, ip: string, type: Parameters<typeof recordAudit>[0]['type'], target: Target, data: Prisma.InputJsonObject = {}) {
  return recordAudit(
    { type, orgId: admin.org.id, actorPersonId: admin.personId, ip, data: { personId: target.personId, email: target.person.email, membershipId: target.id, ...data } },
    tx,
  );
}

export async function addMember(admin: OrgAdmin, input: NewMember, ip: string): Promise<AddOutcome> {
  const email = normalizeEmail(input.email);
  const existing = await db().person.findUnique({ where: { email }, select: { id: true } });
  if (!existing && !input.name) return { kind: 'needs_name', email };
  try {
    const created = await inTransaction(async (tx) => {
      await lockOrgMemberships(tx, admin.org.id);
      requireStanding(await actingAdmin(tx, admin), null, input.role);
      const person = existing
        ? await tx.person.findUniqueOrThrow({ where: { id: existing.id } })
        : await tx.person.create({ data: { email, name: input.name! } });
      if (person.disabledAt) throw forbidden(`The account of ${email} is disabled.`);
      if (await tx.membership.findFirst({ where: { personId: person.id, orgId: admin.org.id } })) {
        throw conflict(`${person.name} is already a member of ${admin.org.name}.`);
      }
      const membership = await tx.membership.create({ data: { personId: person.id, orgId: admin.org.id, role: input.role }, include: { person: true } });
      if (existing) {
        await audit(tx, admin, ip, 'member.added', membership, { role: input.role });
        return { person, membershipId: membership.id, link: null };
      }
      const link = await createPasswordLink(tx, { personId: person.id, purpose: 'invite', orgId: admin.org.id, createdById: admin.personId });
      await audit(tx, admin, ip, 'member.invited', membership, { role: input.role, linkExpiresAt: link.expiresAt.toISOString() });
      return { person, membershipId: membership.id, link };
    });
    const { person, membershipId } = created;
    if (!created.link) return { kind: 'added', name: person.name, membershipId };
    return { kind: 'invited', name: person.name, membershipId, link: await shown(created.link, person, admin) };
  } catch (error) {
    // Someone created the account between the lookup and the insert: adding it is a fresh decision.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw conflict(`An account for ${email} was just created. Add them again.`);
    }
    throw error;
  }
}

export function changeMemberRole(admin: OrgAdmin, membershipId: string, role: Role, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    if (target.role === role) return;
    requireStanding(acting, target, role);
    if (role !== 'owner') await keepAnActiveOwner(tx, target, admin.org.name);
    await tx.membership.update({ where: { id: target.id }, data: { role } });
    await audit(tx, admin, ip, 'member.role_changed', target, { from: target.role, to: role });
  });
}

/** Deactivated: the membership and its grants stay, but /mcp answers 403 and the console is closed. */
export function setMemberStatus(admin: OrgAdmin, membershipId: string, status: MembershipStatus, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    if (target.status === status) return;
    requireStanding(acting, target);
    if (status === 'deactivated') await keepAnActiveOwner(tx, target, admin.org.name);
    await tx.membership.update({ where: { id: target.id }, data: { status } });
    await audit(tx, admin, ip, status === 'deactivated' ? 'member.deactivated' : 'member.reactivated', target);
  });
}

/** Removes the membership; the person's grants in the org are revoked with it. Returns how many. */
export function removeMember(admin: OrgAdmin, membershipId: string, ip: string): Promise<{ revoked: number }> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    requireStanding(acting, target);
    await keepAnActiveOwner(tx, target, admin.org.name);
    const revoked = await revokeGrantsWhere({ personId: target.personId, orgId: admin.org.id }, { byPersonId: admin.personId, reason: 'member_removed', ip });
    await expireUnusedLinks(tx, { personId: target.personId, orgId: admin.org.id });
    await tx.membership.delete({ where: { id: target.id } });
    await audit(tx, admin, ip, 'member.removed', target, { role: target.role, grantsRevoked: revoked });
    return { revoked };
  });
}

export function unlockMember(admin: OrgAdmin, membershipId: string, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    requireStanding(acting, target);
    if (target.person.failedSignIns === 0 && !target.person.lockedUntil) return;
    await clearLockout(target.personId);
    await audit(tx, admin, ip, 'person.unlocked', target, { wasLockedUntil: target.person.lockedUntil?.toISOString() ?? null });
  });
}

/** A reset link, or a fresh invitation for someone who never set a password; earlier links stop working. */
export async function createMemberPasswordLink(admin: OrgAdmin, membershipId: string, ip: string): Promise<ShownLink> {
  const { link, person } = await changeMembership(admin, membershipId, async (tx, acting, target) => {
    await requireResetAllowed(tx, acting, target);
    if (target.person.disabledAt) throw forbidden(`The account of ${target.person.email} is disabled.`);
    const purpose = target.person.passwordHash === null ? 'invite' : 'reset';
    const link = await createPasswordLink(tx, { personId: target.personId, purpose, orgId: admin.org.id, createdById: admin.personId });
    await audit(tx, admin, ip, 'person.password_reset_link_created', target, { purpose, linkExpiresAt: link.expiresAt.toISOString() });
    return { link, person: target.person };
  });
  return shown(link, person, admin);
}

async function shown(link: IssuedLink, person: { name: string; email: string }, admin: OrgAdmin): Promise<ShownLink> {
  const emailed = await deliverPasswordLink(link, person, { orgName: admin.org.name, byName: admin.personName });
  return { purpose: link.purpose, url: link.url, expiresAt: link.expiresAt.toISOString(), emailed };
}
