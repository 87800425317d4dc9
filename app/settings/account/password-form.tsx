'use client';

import { useActionState } from 'react';
import { changePasswordAction } from './actions';

export function PasswordForm() {
  const [state, action, pending] = useActionState(changePasswordAction, null);
  const errorFor = (field: 'current' | 'next' | 'confirm') => (state && !state.ok && state.field === field ? state.error : null);
  return (
    <form action={action} className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <PasswordField name="current" label="Current password" autoComplete="current-password" error={errorFor('current')} />
      <PasswordField name="next" label="New password" autoComplete="new-password" error={errorFor('next')} hint="At least 12 characters." />
      <PasswordField name="confirm" label="Repeat the new password" autoComplete="new-password" error={errorFor('confirm')} />
      <p role="status" aria-live="polite" className={state?.ok ? 'rounded bg-green-50 px-3 py-2 text-sm text-green-900' : 'sr-only'}>
        {state?.ok ? 'Your password was changed.' : ''}
      </p>
      <button type="submit" disabled={pending} className="rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90 disabled:opacity-60">
        {pending ? 'Saving…' : 'Change password'}
      </button>
    </form>
  );
}

function PasswordField({ name, label, autoComplete, error, hint }: { name: string; label: string; autoComplete: string; error: string | null; hint?: string }) {
  const describedBy = error ? `${name}-error` : hint ? `${name}-hint` : undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={name} className="block text-sm font-medium">
        {label}
      </label>
      <input
        id={name}
        name={name}
        type="password"
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
