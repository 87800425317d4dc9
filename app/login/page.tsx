import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentPerson } from '@/lib/auth/session';
import { safeCallbackPath } from '@/lib/auth/callback-path';
import { env } from '@/lib/env';
import { appSigningInFor } from '@/lib/oauth/consent';
import { LoginForm } from './login-form';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const params = await searchParams;
  const callbackPath = safeCallbackPath(params.callbackUrl, env().publicUrl);
  if (await currentPerson()) redirect(callbackPath);
  // The app's registered name, when the way back is the consent screen of a live request: never a query parameter.
  const app = await appSigningInFor(callbackPath);
  return (
    <section className="mx-auto max-w-sm">
      <h1 className="mb-6 text-2xl font-semibold">
        {app ? (
          <>
            Sign in to continue to <span data-testid="signing-in-for">{app}</span>
          </>
        ) : (
          'Sign in to Gatehouse'
        )}
      </h1>
      <LoginForm callbackPath={callbackPath} initialError={params.error ? errorMessage(params.error) : null} />
    </section>
  );
}

function errorMessage(code: string): string {
  return code === 'CredentialsSignin' ? 'The email or password is incorrect.' : 'Signing in did not work. Please try again.';
}
