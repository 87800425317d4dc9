// The console's server-action wrappers, of the family in lib/server/safe-action.ts: resolve and authorize
// the admin on the server, parse the input with zod, run the change, and turn errors into a result the
// page can show. A server action is a public endpoint: anyone can call it with any arguments, so nothing
// here trusts the page that normally calls it.
import type { z } from 'zod';
import type { Permission } from '@/lib/auth/permissions';
import { containsUnstorableText } from '@/lib/db/storable-text';
import { actionContext, parseInput, settle, type ActionContext, type ActionResult } from '@/lib/server/safe-action';
import { requireInstanceAdmin, requireOrgPermission, type InstanceAdmin, type OrgAdmin } from './access';
import { forbidden } from './errors';

export type { ActionContext, ActionResult };

/** The console's actions answer `{ ok: true, value }`: their work returns a plain value. */
async function settleValue<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  return settle(async () => ({ ok: true as const, value: await work() }));
}

/** A server action acting in one org, allowed for people whose role there has `permission`. */
export function orgAction<S extends z.ZodType, T>(
  permission: Permission,
  schema: S,
  work: (admin: OrgAdmin, input: z.infer<S>, context: ActionContext) => Promise<T>,
): (orgSlug: string, input: z.input<S>) => Promise<ActionResult<T>> {
  return (orgSlug, input) =>
    settleValue(async () => {
      if (containsUnstorableText(orgSlug)) throw forbidden(); // no org has such a slug
      const admin = await requireOrgPermission(orgSlug, permission);
      return work(admin, parseInput(schema, input), await actionContext());
    });
}

/** A server action on the whole installation, allowed for instance admins only. */
export function instanceAction<S extends z.ZodType, T>(
  schema: S,
  work: (admin: InstanceAdmin, input: z.infer<S>, context: ActionContext) => Promise<T>,
): (input: z.input<S>) => Promise<ActionResult<T>> {
  return (input) =>
    settleValue(async () => {
      const admin = await requireInstanceAdmin();
      return work(admin, parseInput(schema, input), await actionContext());
    });
}
