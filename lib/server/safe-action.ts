// The server-action wrapper family (the pattern of dub's safe-action): one wrapper per kind of caller —
// a console admin (lib/admin/action.ts), a signed-in person acting on their own account, the holder of a
// one-time link — each resolving the caller on the server, refusing input it cannot use before any work
// runs, and turning errors into an answer the page can show. A server action is a public endpoint:
// anyone can call it with any arguments, of any type, so nothing here trusts the page that normally
// calls it. (A call from another site is refused before it gets here: lib/server/action-origin.ts.)
import { headers } from 'next/headers';
import type { z } from 'zod';
import { asConsoleError, invalid, signedOut } from '@/lib/admin/errors';
import { currentSignIn, type SignIn } from '@/lib/auth/session';
import { containsUnstorableText } from '@/lib/db/storable-text';
import { clientAddress } from '@/lib/http/client-address';

export type ActionResult<T = null> = { ok: true; value: T } | { ok: false; error: string };

/** The answer of a wrapper that refused before the work ran, or of work that failed unexpectedly. */
export type Refusal = { ok: false; error: string };

/** Where a change came from, for the audit log. */
export type ActionContext = { ip: string };

const UNEXPECTED_FAILURE = 'Something went wrong. Nothing was changed; please try again.';
const NOT_VALID = 'The request is not valid.';

/** Runs `work`; a refusal (lib/admin/errors.ts) becomes its message, anything else is logged and answered in general words. */
export async function settle<T>(work: () => Promise<T>): Promise<T | Refusal> {
  try {
    return await work();
  } catch (error) {
    const refusal = asConsoleError(error);
    if (refusal) return { ok: false, error: refusal.message };
    console.error('server action failed', error);
    return { ok: false, error: UNEXPECTED_FAILURE };
  }
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // Text PostgreSQL cannot store would fail as a database error ("Something went wrong"): it is bad input.
  if (containsUnstorableText(input)) throw invalid('The request holds characters that cannot be saved (NUL or broken Unicode).');
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalid(parsed.error.issues[0]?.message ?? NOT_VALID);
  return parsed.data;
}

export async function actionContext(): Promise<ActionContext> {
  return { ip: clientAddress(await headers()) };
}

/**
 * The fields of a form as one object, for a schema to check. Only a FormData is a form (React sends one
 * for `<form action>`; a forged call can send anything), and each field is one text value: a repeated
 * field or a file is not what any Gatehouse form sends.
 */
function formInput(form: unknown): Record<string, string> {
  if (!(form instanceof FormData)) throw invalid(NOT_VALID);
  const fields = new Map<string, string>();
  for (const [name, value] of form.entries()) {
    if (name.startsWith('$ACTION_')) continue; // the framework's own fields of a form sent before its script loaded
    if (typeof value !== 'string' || fields.has(name)) throw invalid(NOT_VALID);
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

async function requireSignIn(): Promise<SignIn> {
  const signIn = await currentSignIn();
  if (!signIn) throw signedOut();
  return signIn;
}

/** A server action of the signed-in person on their own account, with one argument. */
export function personAction<S extends z.ZodType, T>(schema: S, work: (signIn: SignIn, input: z.infer<S>, context: ActionContext) => Promise<T>): (input: z.input<S>) => Promise<T | Refusal> {
  return (input) =>
    settle(async () => {
      const signIn = await requireSignIn();
      return work(signIn, parseInput(schema, input), await actionContext());
    });
}

/** The same for a form with `useActionState`: (previous state, the form's FormData). */
export function personFormAction<S extends z.ZodType, T>(
  schema: S,
  work: (signIn: SignIn, input: z.infer<S>, context: ActionContext) => Promise<T>,
): (previous: T | Refusal | null, form: FormData) => Promise<T | Refusal> {
  return (_previous, form) =>
    settle(async () => {
      const signIn = await requireSignIn();
      return work(signIn, parseInput(schema, formInput(form)), await actionContext());
    });
}

/**
 * A form with `useActionState` that anyone may send: the one-time token among its fields is the
 * authorization (a password link), which `work` checks.
 */
export function tokenFormAction<S extends z.ZodType, T>(
  schema: S,
  work: (input: z.infer<S>, context: ActionContext) => Promise<T>,
): (previous: T | Refusal | null, form: FormData) => Promise<T | Refusal> {
  return (_previous, form) => settle(async () => work(parseInput(schema, formInput(form)), await actionContext()));
}
