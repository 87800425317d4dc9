// What a role may do (docs/protocol.md §1), and the one check every surface uses — /mcp's gates, the admin console's
// pages, server actions and route handlers. Permissions are looked up on every request from the
// membership, never frozen into a token or a session.
import type { Role } from '@/lib/generated/prisma/enums';

export type Permission =
  | 'tool:execute'
  | 'apps:manage'
  | 'members:manage'
  | 'audit:read'
  | 'plan:manage'
  /** Registering a confidential client for the org by hand. */
  | 'clients:register';

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read', 'plan:manage', 'clients:register'],
  admin: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read'],
  member: ['tool:execute'],
  viewer: [],
};

/** Permissions that make someone an admin of the org: any of them opens the console. */
export const CONSOLE_PERMISSIONS: readonly Permission[] = ['apps:manage', 'members:manage', 'audit:read', 'plan:manage'];

/** A role's permissions; a value that is no role (a database written by a newer version) has none. */
export function permissionsOf(role: Role): readonly Permission[] {
  return Object.hasOwn(ROLE_PERMISSIONS, role) ? ROLE_PERMISSIONS[role] : [];
}

export function roleCan(role: Role, permission: Permission): boolean {
  return permissionsOf(role).includes(permission);
}

/** Anyone acting in an org: an /mcp caller or a console user. */
export type Actor = { permissions: readonly Permission[] };

export function hasPermission(actor: Actor, permission: Permission): boolean {
  return actor.permissions.includes(permission);
}
