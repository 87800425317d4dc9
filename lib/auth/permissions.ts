// What a role may do (SPEC §1). Looked up on every request from the membership, never frozen into a token.
import type { Role } from '@/lib/generated/prisma/enums';

export type Permission = 'tool:execute' | 'apps:manage' | 'members:manage' | 'audit:read' | 'plan:manage';

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read', 'plan:manage'],
  admin: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read'],
  member: ['tool:execute'],
  viewer: [],
};

export function permissionsOf(role: Role): readonly Permission[] {
  return ROLE_PERMISSIONS[role];
}

export function roleCan(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
