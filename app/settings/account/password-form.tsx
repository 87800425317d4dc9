'use client';

import { useActionState } from 'react';
import { FormAlert, fieldError, formError } from '@/app/components/form-alert';
import { TextField } from '@/app/components/text-field';
import { changePasswordAction } from './actions';

export function PasswordForm() {
  const [state, action, pending] = useActionState(changePasswordAction, null);
  const errorFor = (field: 'current' | 'next' | 'confirm') => fieldError(state, field);
  return (
    <form action={action} className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <TextField type="password" name="current" label="Current password" autoComplete="current-password" error={errorFor('current')} />
      <TextField type="password" name="next" label="New password" autoComplete="new-password" error={errorFor('next')} hint="At least 12 characters." />
      <TextField type="password" name="confirm" label="Repeat the new password" autoComplete="new-password" error={errorFor('confirm')} />
      {/* A refusal of the whole request (signed out, a request the form would not send) names no field. */}
      <FormAlert message={formError(state)} />
      <p role="status" aria-live="polite" className={state?.ok ? 'rounded bg-green-50 px-3 py-2 text-sm text-green-900' : 'sr-only'}>
        {state?.ok ? 'Your password was changed.' : ''}
      </p>
      <button type="submit" disabled={pending} className="rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90 disabled:opacity-60">
        {pending ? 'Saving…' : 'Change password'}
      </button>
    </form>
  );
}
