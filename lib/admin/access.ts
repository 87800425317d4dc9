// Who may use the console, resolved from the database on every page, server action and route: the
// signed-in person (live session), their active membership in the org named by the request, the role's
// permissions (the same helper /mcp uses). Nothing comes from the client but the org's slug.
import { CONSOLE_PERMISSIONS, hasPermission, permissionsOf, type Permission } from '@/lib/auth/permissions';
import { currentSignIn } from '@/lib/auth/session';
import { db } from '@/lib/db/client';
import type { AppPolicy, PlanStatus, Role } from '@/lib/generated/prisma/enums';
import { forbidden, signedOut } from './errors';

export type OrgAdmin = {
  personId: string;
  personName: string;
  isInstanceAdmin: boolean;
  org: { id: string; slug: string; name: string; planStatus: PlanStatus; appPolicy: AppPolicy };
  role: Role;
  permissions: readonly Permission[];
};

export type InstanceAdmin = { personId: string; personName: string };

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The signed-in person acting in the org, if their membership is active and opens the console at all. */
export async function orgAdmin(orgSlug: unknown): Promise<OrgAdmin> {
  const signIn = await currentSignIn();
  if (!signIn) throw signedOut();
  if (typeof orgSlug !== 'string' || !SLUG.test(orgSlug)) throw forbidden();
  const membership = await db().membership.findFirst({
    where: { personId: signIn.person.id, status: 'active', org: { slug: orgSlug } },
    include: { org: true },
  });
  if (!membership) throw forbidden();
  const permissions = permissionsOf(membership.role);
  if (!CONSOLE_PERMISSIONS.some((permission) => hasPermission({ permissions }, permission))) throw forbidden();
  const { org } = membership;
  return {
    personId: signIn.person.id,
    personName: signIn.person.name,
    isInstanceAdmin: signIn.person.isInstanceAdmin,
    org: { id: org.id, slug: org.slug, name: org.name, planStatus: org.planStatus, appPolicy: org.appPolicy },
    role: membership.role,
    permissions,
  };
}

export async function requireOrgPermission(orgSlug: unknown, permission: Permission): Promise<OrgAdmin> {
  const admin = await orgAdmin(orgSlug);
  if (!hasPermission(admin, permission)) throw forbidden(`Your role in ${admin.org.name} ("${admin.role}") does not allow this.`);
  return admin;
}

export async function requireInstanceAdmin(): Promise<InstanceAdmin> {
  const signIn = await currentSignIn();
  if (!signIn) throw signedOut();
  if (!signIn.person.isInstanceAdmin) throw forbidden('Only instance admins can do this.');
  return { personId: signIn.person.id, personName: signIn.person.name };
}

export type AdministeredOrg = { slug: string; name: string; role: Role };

/** The orgs whose console the person may open, for the org switcher and /admin. */
export async function administeredOrgs(personId: string): Promise<AdministeredOrg[]> {
  const memberships = await db().membership.findMany({
    where: { personId, status: 'active' },
    include: { org: { select: { slug: true, name: true } } },
    orderBy: { org: { name: 'asc' } },
  });
  return memberships
    .filter(({ role }) => CONSOLE_PERMISSIONS.some((permission) => hasPermission({ permissions: permissionsOf(role) }, permission)))
    .map(({ org, role }) => ({ slug: org.slug, name: org.name, role }));
}
