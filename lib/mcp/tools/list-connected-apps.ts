import { hasPermission } from '@/lib/auth/permissions';
import { z } from 'zod';
import { db } from '@/lib/db/client';
import { defineTool } from './definition';

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
  description:
    "Lists the apps connected to the organization: your own connections, or every member's when your role manages apps.",
  input: z.object({}).strict(),
  output: z.object({ scope: z.enum(['mine', 'organization']), apps: z.array(app) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: null,
  async run(caller) {
    const everyone = hasPermission(caller, 'apps:manage');
    const grants = await db().grant.findMany({
      where: { orgId: caller.orgId, revokedAt: null, ...(everyone ? {} : { personId: caller.personId }) },
      include: { client: true, person: true },
      orderBy: { createdAt: 'desc' },
      take: 200,
    });
    const apps = grants.map((grant) => ({
      grantId: grant.id,
      client: { id: grant.clientId, name: grant.client.name },
      person: { name: grant.person.name, email: grant.person.email },
      scopes: grant.scopes,
      approvedAt: grant.createdAt.toISOString(),
      lastUsedAt: grant.lastUsedAt?.toISOString() ?? null,
    }));
    const lines = apps.map((item) => `- ${item.client.name ?? item.client.id} (grant ${item.grantId}) for ${item.person.email}: ${item.scopes.join(' ')}`);
    return {
      text: apps.length ? `${apps.length} connected app(s) in ${caller.orgName}:\n${lines.join('\n')}` : `No connected apps in ${caller.orgName}.`,
      structured: { scope: everyone ? 'organization' : 'mine', apps },
    };
  },
});
