// The rules for changing an org's memberships, checked inside the change's own transaction:
// - only owners manage owners: an admin cannot make anyone an owner, nor change, deactivate, remove,
//   reset or unlock an owner;
// - the org always keeps an active owner: the last one cannot be demoted, deactivated or removed, not even
//   by themselves. The org's row is locked first, so two concurrent changes take turns and the second one
//   sees what the first did;
// - an id from the client is looked up inside the admin's org only: another org's membership is "not found".
import { roleCan } from '@/lib/auth/permissions';
import type { Tx } from '@/lib/db/transaction';
import type { Role } from '@/lib/generated/prisma/enums';
import type { OrgAdmin } from '@/lib/admin/access';
import { conflict, forbidden, notFound } from '@/lib/admin/errors';

/**
 * Serializes membership changes within one org. FOR NO KEY UPDATE conflicts with itself but not with the
 * key-share locks that inserting a grant or an audit row referencing the org takes, so nothing else waits.
 */
export async function lockOrgMemberships(tx: Tx, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM organizations WHERE id = ${orgId} FOR NO KEY UPDATE`;
}

export type Acting = { personId: string; role: Role; isInstanceAdmin: boolean };

/** The admin as they stand now, re-read under the lock: a role lost a moment ago no longer counts. */
export async function actingAdmin(tx: Tx, admin: OrgAdmin): Promise<Acting> {
  const own = await tx.membership.findFirst({
    where: { personId: admin.personId, orgId: admin.org.id, status: 'active' },
    include: { person: { select: { isInstanceAdmin: true, disabledAt: true } } },
  });
  if (!own || own.person.disabledAt || !roleCan(own.role, 'members:manage')) throw forbidden();
  return { personId: admin.personId, role: own.role, isInstanceAdmin: own.person.isInstanceAdmin };
}

export async function targetMembership(tx: Tx, orgId: string, membershipId: string) {
  const membership = await tx.membership.findFirst({ where: { id: membershipId, orgId }, include: { person: true } });
  if (!membership) throw notFound('This person is not a member of this organization.');
  return membership;
}

export type Target = Awaited<ReturnType<typeof targetMembership>>;

/** Only owners act on owners, or make someone an owner. */
export function requireStanding(acting: Acting, target: { role: Role } | null, newRole?: Role): void {
  if (acting.role === 'owner') return;
  if (target?.role === 'owner') throw forbidden('Only an owner can manage an owner.');
  if (newRole === 'owner') throw forbidden('Only an owner can make someone an owner.');
}

/** Refuses a change that would leave the org without an active owner. */
export async function keepAnActiveOwner(tx: Tx, target: Target, orgName: string): Promise<void> {
  if (target.role !== 'owner' || target.status !== 'active') return;
  const others = await tx.membership.count({
    where: { orgId: target.orgId, role: 'owner', status: 'active', id: { not: target.id } },
  });
  if (others === 0) {
    throw conflict(`${target.person.name} is the last active owner of ${orgName}. Make someone else an owner first.`);
  }
}

/**
 * Whoever holds a reset link can take the account over, with every membership it has. So the admin must
 * outrank the person everywhere the account reaches: not themselves (the Account page is for that), not
 * an instance admin unless they are one, not an owner unless they are one, and in every other org of the
 * person they must manage members with the same standing (instance admins excepted).
 */
export async function requireResetAllowed(tx: Tx, acting: Acting, target: Target): Promise<void> {
  if (target.personId === acting.personId) throw forbidden('Change your own password on the Account page.');
  requireStanding(acting, target);
  if (target.person.isInstanceAdmin && !acting.isInstanceAdmin) {
    throw forbidden(`${target.person.name} is an instance admin: only an instance admin can reset their password.`);
  }
  if (acting.isInstanceAdmin) return;
  const elsewhere = await tx.membership.findMany({
    where: { personId: target.personId, orgId: { not: target.orgId } },
    include: { org: { select: { name: true, memberships: { where: { personId: acting.personId, status: 'active' } } } } },
  });
  for (const membership of elsewhere) {
    const mine = membership.org.memberships[0];
    const outranked = mine && roleCan(mine.role, 'members:manage') && (mine.role === 'owner' || membership.role !== 'owner');
    if (!outranked) {
      throw forbidden(`${target.person.name} also belongs to ${membership.org.name}. Only someone who manages its members too, or an instance admin, can reset their password.`);
    }
  }
}
