'use client';

import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { FormAlert } from '@/app/components/form-alert';
import { TextField } from '@/app/components/text-field';

export function LoginForm({ callbackPath, initialError }: { callbackPath: string; initialError: string | null }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
    });
    setPending(false);
    if (!result || result.error) {
      // One message for every failure: it must not tell whether the email has an account.
      setError(
        result?.error === 'TooManyAttempts'
          ? 'Too many failed sign-ins. Try again in 15 minutes, or ask an admin of your organization to unlock your account.'
          : result?.error === 'CredentialsSignin' || !result
            ? 'The email or password is incorrect.'
            : 'Signing in did not work. Please try again.',
      );
      return;
    }
    router.replace(callbackPath);
    router.refresh();
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm" noValidate>
      <TextField name="email" label="Email" type="email" autoComplete="username" />
      <TextField name="password" label="Password" type="password" autoComplete="current-password" />
      <FormAlert id="login-error" message={error} />
      <button type="submit" disabled={pending} className="w-full rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90 disabled:opacity-60">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
