// Resources (SPEC §6): small but real — the caller's organization profile. resources/list needs any
// mcp:* scope, resources/read needs mcp:read.
import { db } from '@/lib/db/client';
import type { Caller } from './caller';
import { McpError } from './errors';
import type { VersionRules } from './versions';

export const ORG_PROFILE_URI = 'gatehouse://organization/profile';

const RESOURCES = [
  {
    uri: ORG_PROFILE_URI,
    name: 'organization-profile',
    title: 'Organization profile',
    description: "The organization this connection acts in: its name, plan, app policy, member count and the caller's role.",
    mimeType: 'application/json',
  },
];

export function listResources() {
  return { resources: RESOURCES };
}

export async function readResource(caller: Caller, uri: string, rules: VersionRules) {
  if (uri !== ORG_PROFILE_URI) {
    throw new McpError(rules.resourceNotFoundCode, 'Resource not found', 200, { data: { uri } });
  }
  const org = await db().organization.findUniqueOrThrow({
    where: { id: caller.orgId },
    include: { _count: { select: { memberships: { where: { status: 'active' } } } } },
  });
  const profile = {
    id: org.id,
    name: org.name,
    slug: org.slug,
    plan: org.planStatus,
    appPolicy: org.appPolicy,
    activeMembers: org._count.memberships,
    yourRole: caller.role,
  };
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(profile, null, 2) }] };
}
