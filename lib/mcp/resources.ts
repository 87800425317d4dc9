// Resources (docs/protocol.md §6): small but real — the caller's organization profile. resources/list needs any
// mcp:* scope, resources/read needs mcp:read. A resource that shows a tool's data meets that tool's
// gates too (an admin's restriction, its scope, the role), and is listed only where it would be served
// (gates.ts).
import { db } from '@/lib/db/client';
import type { Caller } from './caller';
import { McpError } from './errors';
import { listsToolData, refuseToolData } from './gates';
import type { ToolDefinition } from './tools/definition';
import type { VersionRules } from './versions';

export const ORG_PROFILE_URI = 'gatehouse://organization/profile';

type Resource = {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** The tool whose data the resource shows, if any. */
  showsDataOf: ToolDefinition | null;
};

const RESOURCES: Resource[] = [
  {
    uri: ORG_PROFILE_URI,
    name: 'organization-profile',
    title: 'Organization profile',
    description: "The organization this connection acts in: its name, plan, app policy, member count and the caller's role.",
    mimeType: 'application/json',
    // The connection's own organization, as the consent screen showed it: no tool's data (a count of
    // members, not who they are).
    showsDataOf: null,
  },
];

export function listResources(caller: Caller) {
  return {
    resources: RESOURCES.filter((resource) => !resource.showsDataOf || listsToolData(caller, resource.showsDataOf)).map(({ showsDataOf: _tool, ...published }) => published),
  };
}

export async function readResource(caller: Caller, uri: string, rules: VersionRules) {
  const resource = RESOURCES.find((candidate) => candidate.uri === uri);
  if (!resource) throw new McpError(rules.resourceNotFoundCode, 'Resource not found', 200, { data: { uri } });
  const refused = resource.showsDataOf && refuseToolData(caller, resource.showsDataOf, `The resource ${resource.uri}`);
  if (refused) throw refused;
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
