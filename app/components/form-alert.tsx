// How a form shows what its server action refused: one alert paragraph for a refusal of the whole form,
// and the per-field reading of a `{ ok: false, field, error }` answer for the fields' own error lines.

/** A refusal from a form's action: of one field (`field`), or of the whole request (no field). */
type FormState = { ok: true } | { ok: false; error: string; field?: string } | null;

/** The error to show under `field`, when the action refused that field. */
export function fieldError<F extends string>(state: FormState, field: F): string | null {
  return state && !state.ok && state.field === field ? state.error : null;
}

/** The error that belongs to no field (or to one of `formFields`, which the form has no input for). */
export function formError(state: FormState, formFields: readonly string[] = []): string | null {
  return state && !state.ok && (state.field === undefined || formFields.includes(state.field)) ? state.error : null;
}

/** The refusal announced at once to screen readers (role="alert"); nothing when there is none. */
export function FormAlert({ message, id }: { message: string | null; id?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800">
      {message}
    </p>
  );
}
