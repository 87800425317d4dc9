// What each role may do (docs/protocol.md §1, lib/auth/permissions.ts): the one table /mcp's gates, the console and
// the consent screen read. Every role × permission is pinned here, so a grant added or lost shows.
import { describe, expect, it } from 'vitest';
import { CONSOLE_PERMISSIONS, hasPermission, permissionsOf, roleCan, type Permission } from '@/lib/auth/permissions';
import { Role } from '@/lib/generated/prisma/enums';

const ALL: Permission[] = ['tool:execute', 'apps:manage', 'members:manage', 'audit:read', 'plan:manage', 'clients:register'];

const GRANTED: Record<Role, Permission[]> = {
  owner: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read', 'plan:manage', 'clients:register'],
  admin: ['tool:execute', 'apps:manage', 'members:manage', 'audit:read'],
  member: ['tool:execute'],
  viewer: [],
};

const MATRIX = (Object.keys(GRANTED) as Role[]).flatMap((role) => ALL.map((permission) => [role, permission, GRANTED[role].includes(permission)] as const));

describe('role permissions', () => {
  it('cover every role of the schema', () => {
    expect(Object.values(Role).sort()).toEqual(Object.keys(GRANTED).sort());
  });

  it.each(MATRIX)('%s × %s → %s', (role, permission, allowed) => {
    expect(roleCan(role, permission)).toBe(allowed);
    expect(permissionsOf(role).includes(permission)).toBe(allowed);
    expect(hasPermission({ permissions: permissionsOf(role) }, permission)).toBe(allowed);
  });

  it.each(Object.keys(GRANTED) as Role[])('%s has exactly its permissions, each once', (role) => {
    expect([...permissionsOf(role)].sort()).toEqual([...GRANTED[role]].sort());
    expect(new Set(permissionsOf(role)).size).toBe(permissionsOf(role).length);
  });

  it('ranks the roles: each holds everything the one below it holds', () => {
    const order: Role[] = ['viewer', 'member', 'admin', 'owner'];
    for (let i = 1; i < order.length; i++) {
      for (const permission of permissionsOf(order[i - 1]!)) expect(roleCan(order[i]!, permission), `${order[i]} ${permission}`).toBe(true);
    }
  });

  it('opens the console to owners and admins only', () => {
    const opensConsole = (role: Role) => CONSOLE_PERMISSIONS.some((permission) => roleCan(role, permission));
    expect(CONSOLE_PERMISSIONS).toEqual(['apps:manage', 'members:manage', 'audit:read', 'plan:manage']);
    expect((Object.keys(GRANTED) as Role[]).filter(opensConsole)).toEqual(['owner', 'admin']);
  });
});

describe('hasPermission', () => {
  it('reads the actor’s own list, not its role', () => {
    expect(hasPermission({ permissions: [] }, 'tool:execute')).toBe(false);
    expect(hasPermission({ permissions: ['audit:read'] }, 'audit:read')).toBe(true);
    expect(hasPermission({ permissions: ['audit:read'] }, 'tool:execute')).toBe(false);
  });

  it('matches whole permissions only', () => {
    expect(hasPermission({ permissions: ['tool:execute'] }, 'tool' as Permission)).toBe(false);
    expect(hasPermission({ permissions: ['tool:execute'] }, 'TOOL:EXECUTE' as Permission)).toBe(false);
    expect(hasPermission({ permissions: ['tool:execute'] }, '' as Permission)).toBe(false);
  });
});

// Roles come from the database's `role` enum, so no other value reaches these functions; were one to
// (a database written by a newer version), it is granted nothing, without an error.
describe('unknown roles', () => {
  it.each(['superuser', 'Owner', 'OWNER', '', ' owner', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])('grants %j nothing', (role) => {
    expect(permissionsOf(role as Role)).toEqual([]);
    for (const permission of ALL) {
      expect(roleCan(role as Role, permission), permission).toBe(false);
      expect(hasPermission({ permissions: permissionsOf(role as Role) }, permission), permission).toBe(false);
    }
  });
});
