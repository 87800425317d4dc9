// A labelled input with an optional hint or error, linked for screen readers.
export function TextField({
  name,
  label,
  type = 'text',
  autoComplete,
  error = null,
  hint,
}: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  error?: string | null;
  hint?: string;
}) {
  const describedBy = error ? `${name}-error` : hint ? `${name}-hint` : undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={name} className="block text-sm font-medium">
        {label}
      </label>
      <input
        id={name}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className="w-full rounded border border-slate-300 px-3 py-2 focus:border-brand focus:outline-none"
      />
      {error ? (
        <p id={`${name}-error`} className="text-sm text-red-800">
          {error}
        </p>
      ) : hint ? (
        <p id={`${name}-hint`} className="text-sm text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
