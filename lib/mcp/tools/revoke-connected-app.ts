import { z } from 'zod';
import { revokeConnection } from '@/lib/grants/revoke';
import { memberActor } from '@/lib/grants/rules';
import { defineTool } from './definition';

export const revokeConnectedApp = defineTool({
  name: 'revoke_connected_app',
  title: 'Disconnect an app',
  description: "Disconnects an app: revokes one grant (see list_connected_apps). You can revoke your own; with a role that manages apps, any in the organization. The app's next call fails.",
  input: z.object({ grant_id: z.string().min(1).max(200).describe('The grantId from list_connected_apps') }).strict(),
  output: z.object({ revoked: z.boolean(), grantId: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:write',
  permission: null,
  async run(caller, input) {
    const outcome = await revokeConnection(memberActor(caller.personId, caller.orgId, caller), input.grant_id, null);
    if (outcome.kind === 'unknown') {
      return { text: `No connection ${input.grant_id} that you may revoke in ${caller.orgName}.`, structured: { revoked: false, grantId: input.grant_id } };
    }
    const { grant } = outcome;
    return {
      text: outcome.kind === 'revoked' ? `Disconnected ${grant.clientName} (grant ${grant.id}).` : `Grant ${grant.id} was already revoked.`,
      structured: { revoked: outcome.kind === 'revoked', grantId: grant.id },
    };
  },
});
