// An org's members as every surface lists them (docs/protocol.md §7): the console's Members page and list_members.
// Bounded: an org of many thousands answers with the first MEMBER_LIST_LIMIT and says it stopped there.
import { db } from '@/lib/db/client';
import type { MembershipStatus, Role } from '@/lib/generated/prisma/enums';

/** The most members one listing returns, by name. */
export const MEMBER_LIST_LIMIT = 1000;

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

export type MemberList = { rows: MemberRow[] /** The org has more than `limit` members. */; truncated: boolean };

export async function listMembers(orgId: string, limit = MEMBER_LIST_LIMIT): Promise<MemberList> {
  const [memberships, grants] = await Promise.all([
    db().membership.findMany({
      where: { orgId },
      include: { person: true },
      orderBy: [{ person: { name: 'asc' } }, { createdAt: 'asc' }],
      take: limit + 1,
    }),
    db().grant.groupBy({ by: ['personId'], where: { orgId, revokedAt: null }, _count: { _all: true } }),
  ]);
  const liveGrants = new Map(grants.map((row) => [row.personId, row._count._all]));
  const now = Date.now();
  return {
    rows: memberships.slice(0, limit).map(({ id, role, status, createdAt, person }) => ({
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
    })),
    truncated: memberships.length > limit,
  };
}
