// Who may revoke a grant, for every surface (the Connected apps settings page, the console's Connected
// apps page, the revoke_connected_app tool): one rule, here only.
// - a person may revoke their own grants, in any organization;
// - someone whose role in an organization manages apps (apps:manage) may revoke any grant there;
// - a grant they may not revoke is answered as if it did not exist: its id reveals nothing.
import { hasPermission, type Permission } from '@/lib/auth/permissions';
import type { Revocation } from './revoke';

/** Who asks to revoke: a person for themselves (orgId null), or a member acting in one org. */
export type GrantActor = { personId: string; orgId: string | null; managesApps: boolean };

/** A person acting for themselves, in whatever org their grants are. */
export function personActor(personId: string): GrantActor {
  return { personId, orgId: null, managesApps: false };
}

/** A member acting in one org, with their role's permissions there. */
export function memberActor(personId: string, orgId: string, role: { permissions: readonly Permission[] }): GrantActor {
  return { personId, orgId, managesApps: hasPermission(role, 'apps:manage') };
}

type GrantOwner = { personId: string; orgId: string };

export function mayRevoke(actor: GrantActor, grant: GrantOwner): boolean {
  if (actor.orgId !== null && grant.orgId !== actor.orgId) return false;
  return grant.personId === actor.personId || (actor.orgId !== null && actor.managesApps);
}

/** Every grant of an org (a client's, all at once) is only for those who manage its apps. */
export function mayRevokeAllInOrg(actor: GrantActor): actor is GrantActor & { orgId: string } {
  return actor.orgId !== null && actor.managesApps;
}

/** The reason the audit event records: one's own grant is the person's decision, anyone else's the admin's. */
export function revokeReason(actor: GrantActor, grant: GrantOwner): Revocation['reason'] {
  return grant.personId === actor.personId ? 'person' : 'org_admin';
}
