import { z } from 'zod';
import { listMembers as membersOfOrg, MEMBER_LIST_LIMIT } from '@/lib/members/list';
import { defineTool } from './definition';

export const listMembers = defineTool({
  name: 'list_members',
  title: 'List members',
  description: 'Lists the members of the organization with their role and whether their membership is active.',
  input: z.object({}).strict(),
  output: z.object({
    members: z.array(z.object({ name: z.string(), email: z.string(), role: z.string(), status: z.string() })),
    truncated: z.boolean(),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: null,
  async run(caller) {
    const list = await membersOfOrg(caller.orgId);
    const members = list.rows.map((member) => ({ name: member.name, email: member.email, role: member.role, status: member.status }));
    const lines = members.map((member) => `- ${member.name} <${member.email}>: ${member.role}${member.status === 'active' ? '' : ' (deactivated)'}`);
    const more = list.truncated ? `\nOnly the first ${MEMBER_LIST_LIMIT} by name are listed: there are more.` : '';
    return {
      text: `${members.length} member(s) of ${caller.orgName}:\n${lines.join('\n')}${more}`,
      structured: { members, truncated: list.truncated },
    };
  },
});
