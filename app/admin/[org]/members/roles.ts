// The roles as the members page names and explains them (permissions: lib/auth/permissions.ts).
import type { Role } from '@/lib/generated/prisma/enums';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export const ROLE_LABELS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };

export const ROLE_DOES: Record<Role, string> = {
  owner: 'can do everything, including the plan and managing other owners',
  admin: 'manage apps and members (except owners) and read the audit log',
  member: 'use tools through the apps they connect',
  viewer: 'can connect apps, but those apps cannot run tools',
};
