import { z } from 'zod';
import { db } from '@/lib/db/client';
import { defineTool } from './definition';

export const listMembers = defineTool({
  name: 'list_members',
  title: 'List members',
  description: 'Lists the members of the organization with their role and whether their membership is active.',
  input: z.object({}).strict(),
  output: z.object({
    members: z.array(z.object({ name: z.string(), email: z.string(), role: z.string(), status: z.string() })),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: null,
  async run(caller) {
    const memberships = await db().membership.findMany({
      where: { orgId: caller.orgId },
      include: { person: true },
      orderBy: { person: { name: 'asc' } },
    });
    const members = memberships.map((membership) => ({
      name: membership.person.name,
      email: membership.person.email,
      role: membership.role,
      status: membership.status,
    }));
    return {
      text: `${members.length} member(s) of ${caller.orgName}:\n${members.map((member) => `- ${member.name} <${member.email}>: ${member.role}${member.status === 'active' ? '' : ' (deactivated)'}`).join('\n')}`,
      structured: { members },
    };
  },
});
