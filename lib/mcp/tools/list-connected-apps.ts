import { z } from 'zod';
import { grantsOfOrg } from '@/lib/grants/list';
import { memberActor } from '@/lib/grants/rules';
import { defineTool } from './definition';

/** The most grants one call returns, newest first; `truncated` says when there were more. */
export const CONNECTED_APPS_LIMIT = 200;

const app = z.object({
  grantId: z.string(),
  client: z.object({ id: z.string(), name: z.string().nullable() }),
  person: z.object({ name: z.string(), email: z.string() }),
  scopes: z.array(z.string()),
  approvedAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

export const listConnectedApps = defineTool({
  name: 'list_connected_apps',
  title: 'List connected apps',
  description: "Lists the apps connected to the organization: your own connections, or every member's when your role manages apps.",
  input: z.object({}).strict(),
  output: z.object({ scope: z.enum(['mine', 'organization']), apps: z.array(app), truncated: z.boolean() }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: null,
  async run(caller) {
    // Whose grants one may see is whose one may revoke (lib/grants/rules.ts).
    const everyone = memberActor(caller.personId, caller.orgId, caller).managesApps;
    const list = await grantsOfOrg(caller.orgId, everyone ? {} : { personId: caller.personId }, CONNECTED_APPS_LIMIT);
    const apps = list.rows.map((grant) => ({
      grantId: grant.grantId,
      client: { id: grant.clientId, name: grant.registeredName },
      person: { name: grant.personName, email: grant.personEmail },
      scopes: grant.scopes,
      approvedAt: grant.approvedAt.toISOString(),
      lastUsedAt: grant.lastUsedAt?.toISOString() ?? null,
    }));
    const lines = apps.map((item) => `- ${item.client.name ?? item.client.id} (grant ${item.grantId}) for ${item.person.email}: ${item.scopes.join(' ')}`);
    const more = list.truncated ? `\nOnly the newest ${CONNECTED_APPS_LIMIT} are listed: there are more.` : '';
    return {
      text: apps.length ? `${apps.length} connected app(s) in ${caller.orgName}:\n${lines.join('\n')}${more}` : `No connected apps in ${caller.orgName}.`,
      structured: { scope: everyone ? 'organization' : 'mine', apps, truncated: list.truncated },
    };
  },
});
