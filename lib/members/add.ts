// Adding someone to an org (docs/protocol.md §7): a person who has an account joins at once; someone who has none is
// invited, with a set-password link. Only owners make owners (rules.ts).
import type { OrgAdmin } from '@/lib/admin/access';
import { conflict, forbidden } from '@/lib/admin/errors';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import { Prisma } from '@/lib/generated/prisma/client';
import type { Role } from '@/lib/generated/prisma/enums';
import { normalizeEmail } from '@/lib/people/accounts';
import { createPasswordLink } from '@/lib/people/password-links';
import { auditMemberChange } from './change';
import { shown, type ShownLink } from './password-link';
import { actingAdmin, lockOrgMemberships, requireStanding } from './rules';

export type NewMember = { email: string; role: Role; name?: string };

export type AddOutcome =
  | { kind: 'added'; name: string; membershipId: string }
  /** No account has this email: the admin is asked for the person's name to invite them. */
  | { kind: 'needs_name'; email: string }
  | { kind: 'invited'; name: string; membershipId: string; link: ShownLink };

export async function addMember(admin: OrgAdmin, input: NewMember, ip: string): Promise<AddOutcome> {
  const email = normalizeEmail(input.email);
  const existing = await db().person.findUnique({ where: { email }, select: { id: true } });
  if (!existing && !input.name) return { kind: 'needs_name', email };
  try {
    const created = await inTransaction(async (tx) => {
      await lockOrgMemberships(tx, admin.org.id);
      requireStanding(await actingAdmin(tx, admin), null, input.role);
      const person = existing ? await tx.person.findUniqueOrThrow({ where: { id: existing.id } }) : await tx.person.create({ data: { email, name: input.name! } });
      if (person.disabledAt) throw forbidden(`The account of ${email} is disabled.`);
      if (await tx.membership.findFirst({ where: { personId: person.id, orgId: admin.org.id } })) {
        throw conflict(`${person.name} is already a member of ${admin.org.name}.`);
      }
      const membership = await tx.membership.create({ data: { personId: person.id, orgId: admin.org.id, role: input.role }, include: { person: true } });
      if (existing) {
        await auditMemberChange(tx, admin, ip, 'member.added', membership, { role: input.role });
        return { person, membershipId: membership.id, link: null };
      }
      const link = await createPasswordLink(tx, { personId: person.id, purpose: 'invite', orgId: admin.org.id, createdById: admin.personId });
      await auditMemberChange(tx, admin, ip, 'member.invited', membership, { role: input.role, linkExpiresAt: link.expiresAt.toISOString() });
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
