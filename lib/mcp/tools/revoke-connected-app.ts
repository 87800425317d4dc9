import { hasPermission } from '@/lib/auth/permissions';
import { z } from 'zod';
import { db } from '@/lib/db/client';
import { revokeGrant } from '@/lib/oauth/grants';
import { defineTool } from './definition';

export const revokeConnectedApp = defineTool({
  name: 'revoke_connected_app',
  title: 'Disconnect an app',
  description:
    "Disconnects an app: revokes one grant (see list_connected_apps). You can revoke your own; with a role that manages apps, any in the organization. The app's next call fails.",
  input: z.object({ grant_id: z.string().min(1).max(200).describe('The grantId from list_connected_apps') }).strict(),
  output: z.object({ revoked: z.boolean(), grantId: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:write',
  permission: null,
  async run(caller, input) {
    const grant = await db().grant.findFirst({ where: { id: input.grant_id, orgId: caller.orgId }, include: { client: true } });
    const mayRevoke = grant && (grant.personId === caller.personId || hasPermission(caller, 'apps:manage'));
    if (!grant || !mayRevoke) {
      return { text: `No connection ${input.grant_id} that you may revoke in ${caller.orgName}.`, structured: { revoked: false, grantId: input.grant_id } };
    }
    const revoked = await revokeGrant({
      grantId: grant.id,
      byPersonId: caller.personId,
      reason: grant.personId === caller.personId ? 'person' : 'org_admin',
    });
    return {
      text: revoked ? `Disconnected ${grant.client.name ?? grant.clientId} (grant ${grant.id}).` : `Grant ${grant.id} was already revoked.`,
      structured: { revoked, grantId: grant.id },
    };
  },
});
