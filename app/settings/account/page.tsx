import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { currentPerson } from '@/lib/auth/session';
import { PasswordForm } from './password-form';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const person = await currentPerson();
  if (!person) redirect(`/login?callbackUrl=${encodeURIComponent('/settings/account')}`);
  return (
    <div className="space-y-6">
      <div>
        <p className="text-sm">
          <Link href="/" className="text-brand underline">
            ← Home
          </Link>
        </p>
        <h1 className="mt-2 text-2xl font-semibold">Account</h1>
        <p className="text-slate-600">
          {person.name} · {person.email}
        </p>
      </div>
      <section className="max-w-md space-y-3">
        <h2 className="text-lg font-semibold">Change password</h2>
        <PasswordForm />
      </section>
    </div>
  );
}
