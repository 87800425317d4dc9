// A resolved /mcp caller for unit tests of what is decided from one (gates, refusals): Ada, a member of Acme
// by default, holding both scopes, with no tool switched off.
import { permissionsOf } from '@/lib/auth/permissions';
import type { Role } from '@/lib/generated/prisma/enums';
import type { Caller } from '@/lib/mcp/caller';
import type { McpScope } from '@/lib/oauth/scopes';

export function testCaller(overrides: { role?: Role; scopes?: McpScope[]; restricted?: string[] } = {}): Caller {
  const role = overrides.role ?? 'member';
  return {
    personId: 'p1',
    personName: 'Ada',
    personEmail: 'ada@acme.test',
    orgId: 'o1',
    orgName: 'Acme',
    role,
    permissions: permissionsOf(role),
    clientId: 'c1',
    clientName: 'Client',
    grantId: 'g1',
    scopes: overrides.scopes ?? ['mcp:read', 'mcp:write'],
    restrictedTools: new Set(overrides.restricted ?? []),
    tokenExpiresAt: new Date(Date.now() + 3_600_000),
    grantLastUsedAt: null,
  };
}
