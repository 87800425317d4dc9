// Every organization and every person of the installation, for instance admins: who is where, who is
// disabled or locked out, and the installation-wide changes — disable or enable a person, create an
// organization for an existing person.
import { recordAudit } from '@/lib/audit/events';
import { endSessionsOf } from '@/lib/auth/sign-in-sessions';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import type { Prisma } from '@/lib/generated/prisma/client';
import type { AppPolicy, MembershipStatus, PlanStatus, Role } from '@/lib/generated/prisma/enums';
import { normalizeEmail, slugify } from '@/lib/people/accounts';
import { orgSlugProblem } from '@/lib/people/org-slugs';
import type { InstanceAdmin } from './access';
import { conflict, invalid, notFound } from './errors';
import { type NumberedPage, pageAmong, searchAny } from './numbered-pages';

export type InstanceOrgRow = {
  id: string;
  slug: string;
  name: string;
  planStatus: PlanStatus;
  appPolicy: AppPolicy;
  activeMembers: number;
  deactivatedMembers: number;
  owners: string[];
  liveGrants: number;
  createdAt: Date;
};

export async function instanceOrgs(): Promise<InstanceOrgRow[]> {
  const orgs = await db().organization.findMany({
    include: {
      memberships: { where: { role: 'owner', status: 'active' }, select: { person: { select: { name: true } } } },
      _count: { select: { grants: { where: { revokedAt: null } } } },
    },
    orderBy: { name: 'asc' },
    take: 1000,
  });
  const members = await db().membership.groupBy({ by: ['orgId', 'status'], _count: { _all: true } });
  const count = (orgId: string, status: MembershipStatus) => members.find((group) => group.orgId === orgId && group.status === status)?._count._all ?? 0;
  return orgs.map((org) => ({
    id: org.id,
    slug: org.slug,
    name: org.name,
    planStatus: org.planStatus,
    appPolicy: org.appPolicy,
    activeMembers: count(org.id, 'active'),
    deactivatedMembers: count(org.id, 'deactivated'),
    owners: org.memberships.map((membership) => membership.person.name),
    liveGrants: org._count.grants,
    createdAt: org.createdAt,
  }));
}

export const PEOPLE_PER_PAGE = 25;

export type InstancePersonRow = {
  id: string;
  name: string;
  email: string;
  isInstanceAdmin: boolean;
  disabledAt: Date | null;
  /** Set while sign-in is refused after too many wrong passwords. */
  lockedUntil: Date | null;
  memberships: { orgSlug: string; orgName: string; role: Role; status: MembershipStatus }[];
  lastSignInAt: Date | null;
};

export type PeoplePage = NumberedPage<InstancePersonRow>;

/** One page of people by name, optionally only those whose name or email contains `query`. */
export async function instancePeople(query: string, page: number): Promise<PeoplePage> {
  const where: Prisma.PersonWhereInput = searchAny(query, ['name', 'email']);
  const total = await db().person.count({ where });
  const { page: current, pages, skip, take } = pageAmong(total, page, PEOPLE_PER_PAGE);
  const people = await db().person.findMany({
    where,
    include: { memberships: { include: { org: { select: { slug: true, name: true } } }, orderBy: { org: { name: 'asc' } } } },
    orderBy: [{ name: 'asc' }, { email: 'asc' }],
    skip,
    take,
  });
  const signIns = await db().signInSession.groupBy({
    by: ['personId'],
    where: { personId: { in: people.map((person) => person.id) } },
    _max: { createdAt: true },
  });
  const lastSignIn = new Map(signIns.map((group) => [group.personId, group._max.createdAt]));
  const now = Date.now();
  const rows = people.map((person) => ({
    id: person.id,
    name: person.name,
    email: person.email,
    isInstanceAdmin: person.isInstanceAdmin,
    disabledAt: person.disabledAt,
    lockedUntil: person.lockedUntil && person.lockedUntil.getTime() > now ? person.lockedUntil : null,
    memberships: person.memberships.map((membership) => ({
      orgSlug: membership.org.slug,
      orgName: membership.org.name,
      role: membership.role,
      status: membership.status,
    })),
    lastSignInAt: lastSignIn.get(person.id) ?? null,
  }));
  return { rows, total, page: current, pages };
}

const UNKNOWN_PERSON = 'This person does not exist.';

/**
 * Disables a person: they cannot sign in, their browser sessions end now, and their apps' tokens fail
 * on the next call (/mcp and the token endpoint check the person every time). Returns the sessions ended.
 */
export async function disablePerson(admin: InstanceAdmin, personId: string, ip: string): Promise<{ sessionsEnded: number }> {
  if (personId === admin.personId) throw invalid('You cannot disable your own account.');
  return inTransaction(async (tx) => {
    const person = await tx.person.findUnique({ where: { id: personId }, select: { email: true } });
    if (!person) throw notFound(UNKNOWN_PERSON);
    const changed = await tx.person.updateMany({ where: { id: personId, disabledAt: null }, data: { disabledAt: new Date() } });
    if (changed.count === 0) return { sessionsEnded: 0 }; // already disabled
    const sessionsEnded = await endSessionsOf(personId, null, 'person_disabled');
    await recordAudit({ type: 'person.disabled', actorPersonId: admin.personId, ip, data: { personId, email: person.email, sessionsEnded } }, tx);
    return { sessionsEnded };
  });
}

export function enablePerson(admin: InstanceAdmin, personId: string, ip: string): Promise<void> {
  return inTransaction(async (tx) => {
    const person = await tx.person.findUnique({ where: { id: personId }, select: { email: true } });
    if (!person) throw notFound(UNKNOWN_PERSON);
    const changed = await tx.person.updateMany({ where: { id: personId, disabledAt: { not: null } }, data: { disabledAt: null } });
    if (changed.count === 0) return;
    await recordAudit({ type: 'person.enabled', actorPersonId: admin.personId, ip, data: { personId, email: person.email } }, tx);
  });
}

export type NewOrganization = { name: string; slug?: string; ownerEmail: string };

/** Creates an organization owned by a person who already has an account. Returns its address. */
export async function createOrganization(admin: InstanceAdmin, input: NewOrganization, ip: string): Promise<{ slug: string }> {
  const name = input.name.trim();
  const slug = input.slug?.trim() || slugify(name);
  const problem = orgSlugProblem(slug);
  if (problem) throw invalid(problem);
  const email = normalizeEmail(input.ownerEmail);
  return inTransaction(async (tx) => {
    const owner = await tx.person.findUnique({ where: { email }, select: { id: true, disabledAt: true } });
    if (!owner) throw notFound(`No one has an account with the email ${email}.`);
    if (owner.disabledAt) throw invalid(`${email} is disabled: enable the account first.`);
    if (await tx.organization.findUnique({ where: { slug }, select: { id: true } })) {
      throw conflict(`An organization with the address "${slug}" already exists.`);
    }
    const org = await tx.organization.create({ data: { name, slug } });
    await tx.membership.create({ data: { personId: owner.id, orgId: org.id, role: 'owner' } });
    await recordAudit({ type: 'org.created', orgId: org.id, actorPersonId: admin.personId, ip, data: { name, slug, ownerPersonId: owner.id, ownerEmail: email } }, tx);
    return { slug };
  });
}
