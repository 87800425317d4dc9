// Changing an org's memberships, for its owners and admins (docs/protocol.md §7, issue: Members): change a role;
// deactivate (their apps get 403 on the next /mcp call, grants kept) or reactivate; remove (their grants
// in the org revoked); lift a sign-in lockout. Each change runs in its own transaction under the org's
// lock, checked by the rules in rules.ts, and is audited in that transaction.
import type { OrgAdmin } from '@/lib/admin/access';
import { recordAudit } from '@/lib/audit/events';
import { clearLockout } from '@/lib/auth/sign-in-guard';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { MembershipStatus, Role } from '@/lib/generated/prisma/enums';
import type { Prisma } from '@/lib/generated/prisma/client';
import { revokeGrantsWhere } from '@/lib/grants/revoke';
import { expireUnusedLinks } from '@/lib/people/password-links';
import { actingAdmin, keepAnActiveOwner, lockOrgMemberships, requireStanding, targetMembership, type Acting, type Target } from './rules';

type Change<T> = (tx: Tx, acting: Acting, target: Target) => Promise<T>;

/** Runs a change to one membership of the admin's org under the org's lock, with the rules every change shares. */
export function changeMembership<T>(admin: OrgAdmin, membershipId: string, change: Change<T>): Promise<T> {
  return inTransaction(async (tx) => {
    await lockOrgMemberships(tx, admin.org.id);
    const acting = await actingAdmin(tx, admin);
    const target = await targetMembership(tx, admin.org.id, membershipId);
    return change(tx, acting, target);
  });
}

/** The audit event of a membership change, naming the member it was about. */
export function auditMemberChange(tx: Tx, admin: OrgAdmin, ip: string, type: Parameters<typeof recordAudit>[0]['type'], target: Target, data: Prisma.InputJsonObject = {}) {
  return recordAudit({ type, orgId: admin.org.id, actorPersonId: admin.personId, ip, data: { personId: target.personId, email: target.person.email, membershipId: target.id, ...data } }, tx);
}

export function changeMemberRole(admin: OrgAdmin, membershipId: string, role: Role, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    if (target.role === role) return;
    requireStanding(acting, target, role);
    if (role !== 'owner') await keepAnActiveOwner(tx, target, admin.org.name);
    await tx.membership.update({ where: { id: target.id }, data: { role } });
    await auditMemberChange(tx, admin, ip, 'member.role_changed', target, { from: target.role, to: role });
  });
}

/** Deactivated: the membership and its grants stay, but /mcp answers 403 and the console is closed. */
export function setMemberStatus(admin: OrgAdmin, membershipId: string, status: MembershipStatus, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    if (target.status === status) return;
    requireStanding(acting, target);
    if (status === 'deactivated') await keepAnActiveOwner(tx, target, admin.org.name);
    await tx.membership.update({ where: { id: target.id }, data: { status } });
    await auditMemberChange(tx, admin, ip, status === 'deactivated' ? 'member.deactivated' : 'member.reactivated', target);
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
    await auditMemberChange(tx, admin, ip, 'member.removed', target, { role: target.role, grantsRevoked: revoked });
    return { revoked };
  });
}

export function unlockMember(admin: OrgAdmin, membershipId: string, ip: string): Promise<void> {
  return changeMembership(admin, membershipId, async (tx, acting, target) => {
    requireStanding(acting, target);
    if (target.person.failedSignIns === 0 && !target.person.lockedUntil) return;
    await clearLockout(target.personId);
    await auditMemberChange(tx, admin, ip, 'person.unlocked', target, { wasLockedUntil: target.person.lockedUntil?.toISOString() ?? null });
  });
}
