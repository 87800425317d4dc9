'use client';

import { useActionState } from 'react';
import { FormAlert, fieldError, formError } from '@/app/components/form-alert';
import { TextField } from '@/app/components/text-field';
import { setPasswordAction } from './actions';

export function SetPasswordForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState(setPasswordAction, null);
  if (state?.ok) {
    return (
      <div role="status" className="space-y-3 rounded-lg border border-green-200 bg-green-50 p-6 text-green-900">
        <p className="font-medium">Your password is set.</p>
        <p>
          Sign in as {state.email} with your new password.{' '}
          <a href="/login" className="font-medium underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
            Sign in
          </a>
        </p>
      </div>
    );
  }
  const errorFor = (field: 'password' | 'confirm') => fieldError(state, field);
  return (
    <form action={action} className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <input type="hidden" name="token" value={token} />
      <TextField type="password" name="password" label="New password" autoComplete="new-password" error={errorFor('password')} hint="At least 12 characters." />
      <TextField type="password" name="confirm" label="Repeat the new password" autoComplete="new-password" error={errorFor('confirm')} />
      {/* About the link, or a refusal of the whole request (which names no field). */}
      <FormAlert message={formError(state, ['link'])} />
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-offset-1 disabled:opacity-60"
      >
        {pending ? 'Saving…' : 'Set password'}
      </button>
    </form>
  );
}
