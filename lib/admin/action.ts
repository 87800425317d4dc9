// The one wrapper every console server action goes through (the pattern of dub's safe-action): parse the
// input with zod, resolve and authorize the person on the server, run the change, and turn errors into
// a result the page can show. A server action is a public endpoint: anyone can call it with any
// arguments, so nothing here trusts the page that normally calls it.
import { headers } from 'next/headers';
import type { z } from 'zod';
import type { Permission } from '@/lib/auth/permissions';
import { containsUnstorableText } from '@/lib/db/storable-text';
import { clientAddress } from '@/lib/http/client-address';
import { requireInstanceAdmin, requireOrgPermission, type InstanceAdmin, type OrgAdmin } from './access';
import { ConsoleError, forbidden, invalid } from './errors';

export type ActionResult<T = null> = { ok: true; value: T } | { ok: false; error: string };

async function settle<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof ConsoleError) return { ok: false, error: error.message };
    console.error('console action failed', error);
    return { ok: false, error: 'Something went wrong. Nothing was changed; please try again.' };
  }
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // Text PostgreSQL cannot store would fail as a database error ("Something went wrong"): it is bad input.
  if (containsUnstorableText(input)) throw invalid('The request holds characters that cannot be saved (NUL or broken Unicode).');
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalid(parsed.error.issues[0]?.message ?? 'The request is not valid.');
  return parsed.data;
}

/** Where a change came from, for the audit log. */
export type ActionContext = { ip: string };

async function context(): Promise<ActionContext> {
  return { ip: clientAddress(await headers()) };
}

/** A server action acting in one org, allowed for people whose role there has `permission`. */
export function orgAction<S extends z.ZodType, T>(
  permission: Permission,
  schema: S,
  work: (admin: OrgAdmin, input: z.infer<S>, context: ActionContext) => Promise<T>,
): (orgSlug: string, input: z.input<S>) => Promise<ActionResult<T>> {
  return (orgSlug, input) =>
    settle(async () => {
      if (containsUnstorableText(orgSlug)) throw forbidden(); // no org has such a slug
      const admin = await requireOrgPermission(orgSlug, permission);
      return work(admin, parse(schema, input), await context());
    });
}

/** A server action on the whole installation, allowed for instance admins only. */
export function instanceAction<S extends z.ZodType, T>(
  schema: S,
  work: (admin: InstanceAdmin, input: z.infer<S>, context: ActionContext) => Promise<T>,
): (input: z.input<S>) => Promise<ActionResult<T>> {
  return (input) =>
    settle(async () => {
      const admin = await requireInstanceAdmin();
      return work(admin, parse(schema, input), await context());
    });
}
