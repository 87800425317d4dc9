import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentPerson } from '@/lib/auth/session';
import { SettingsHeader } from '../settings-header';
import { PasswordForm } from './password-form';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const person = await currentPerson();
  if (!person) redirect(`/login?callbackUrl=${encodeURIComponent('/settings/account')}`);
  return (
    <div className="space-y-6">
      <SettingsHeader title="Account">
        {person.name} · {person.email}
      </SettingsHeader>
      <section className="max-w-md space-y-3">
        <h2 className="text-lg font-semibold">Change password</h2>
        <PasswordForm />
      </section>
    </div>
  );
}
