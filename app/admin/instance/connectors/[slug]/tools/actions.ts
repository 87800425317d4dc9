'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { approveHeldTools, keepHolding, setScopeOverride } from '@/lib/connectors/review';

// Names as the upstream gives them (definitions.ts LIMITS.name); a held definition's hash is SHA-256 hex.
const slug = z.string().min(1).max(32);
const tool = z.string().min(1).max(128);
const decision = z.object({ tool, heldHash: z.string().regex(/^[0-9a-f]{64}$/, 'That is not a definition hash.') }).strict();

export const approveHeldToolsAction = instanceAction(z.object({ slug, decisions: z.array(decision).min(1).max(500) }).strict(), (admin, input, { ip }) =>
  approveHeldTools(input.slug, input.decisions, { actorPersonId: admin.personId, ip, via: 'console' }),
);

export const keepHoldingAction = instanceAction(z.object({ slug, tool, heldHash: decision.shape.heldHash }).strict(), (admin, input, { ip }) =>
  keepHolding(input.slug, { tool: input.tool, heldHash: input.heldHash }, { actorPersonId: admin.personId, ip, via: 'console' }),
);

export const setToolScopeAction = instanceAction(z.object({ slug, tool, scope: z.enum(['mcp:read', 'mcp:write']).nullable(), confirmLowering: z.boolean() }).strict(), async (admin, input, { ip }) => {
  const changed = await setScopeOverride(input.slug, input.tool, input.scope, { actorPersonId: admin.personId, ip, via: 'console' }, { confirmLowering: input.confirmLowering });
  return { scope: changed.scope, scopeOverride: changed.scopeOverride };
});
