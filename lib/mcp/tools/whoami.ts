import { z } from 'zod';
import { defineTool } from './definition';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: 'Tells who this connection acts as: the person, the organization, their role, the app, the granted scopes and when the access token expires.',
  input: z.object({}).strict(),
  output: z.object({
    person: z.object({ name: z.string(), email: z.string() }),
    organization: z.object({ id: z.string(), name: z.string() }),
    role: z.string(),
    permissions: z.array(z.string()),
    client: z.object({ id: z.string(), name: z.string().nullable() }),
    scopes: z.array(z.string()),
    tokenExpiresAt: z.string(),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: null,
  async run(caller) {
    const structured = {
      person: { name: caller.personName, email: caller.personEmail },
      organization: { id: caller.orgId, name: caller.orgName },
      role: caller.role,
      permissions: [...caller.permissions],
      client: { id: caller.clientId, name: caller.clientName },
      scopes: caller.scopes,
      tokenExpiresAt: caller.tokenExpiresAt.toISOString(),
    };
    return {
      text: `You are connected as ${caller.personName} <${caller.personEmail}>, ${caller.role} of ${caller.orgName}, through ${caller.clientName ?? caller.clientId} with ${caller.scopes.join(' ')}. The access token expires at ${structured.tokenExpiresAt}.`,
      structured,
    };
  },
});
