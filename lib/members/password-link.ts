// One-time set-password links an admin makes for a member (docs/protocol.md §7): a reset link, or a fresh invitation
// for someone who never set a password. Who may make one is in rules.ts (requireResetAllowed).
import type { OrgAdmin } from '@/lib/admin/access';
import { forbidden } from '@/lib/admin/errors';
import { deliverPasswordLink } from '@/lib/people/link-delivery';
import { createPasswordLink, type IssuedLink } from '@/lib/people/password-links';
import { auditMemberChange, changeMembership } from './change';
import { requireResetAllowed } from './rules';

/** A set-password link as the admin sees it, once. */
export type ShownLink = { purpose: IssuedLink['purpose']; url: string; expiresAt: string; emailed: boolean };

/** A reset link, or a fresh invitation for someone who never set a password; earlier links stop working. */
export async function createMemberPasswordLink(admin: OrgAdmin, membershipId: string, ip: string): Promise<ShownLink> {
  const { link, person } = await changeMembership(admin, membershipId, async (tx, acting, target) => {
    await requireResetAllowed(tx, acting, target);
    if (target.person.disabledAt) throw forbidden(`The account of ${target.person.email} is disabled.`);
    const purpose = target.person.passwordHash === null ? 'invite' : 'reset';
    const link = await createPasswordLink(tx, { personId: target.personId, purpose, orgId: admin.org.id, createdById: admin.personId });
    await auditMemberChange(tx, admin, ip, 'person.password_reset_link_created', target, { purpose, linkExpiresAt: link.expiresAt.toISOString() });
    return { link, person: target.person };
  });
  return shown(link, person, admin);
}

/** Sends the link by email when mail is set up; the admin sees it once either way. */
export async function shown(link: IssuedLink, person: { name: string; email: string }, admin: OrgAdmin): Promise<ShownLink> {
  const emailed = await deliverPasswordLink(link, person, { orgName: admin.org.name, byName: admin.personName });
  return { purpose: link.purpose, url: link.url, expiresAt: link.expiresAt.toISOString(), emailed };
}
