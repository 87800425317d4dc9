import type { Metadata } from 'next';
import { NarrowColumn } from '@/app/components/narrow-column';
import { exactTime } from '@/app/components/relative-time';
import { describePasswordLink } from '@/lib/people/password-links';
import { SetPasswordForm } from './set-password-form';

export const metadata: Metadata = { title: 'Set your password', robots: { index: false } };
export const dynamic = 'force-dynamic';

const GONE = {
  used: 'This link was already used. Each link works once.',
  expired: 'This link has expired, or a newer link replaced it.',
  unknown: 'This link is not valid. Check that you copied all of it.',
} as const;

export default async function SetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await describePasswordLink(token);
  return (
    <NarrowColumn>
      <section className="mx-auto max-w-md space-y-6">
        {link.state === 'valid' ? (
          <>
            <div>
              <h1 className="text-2xl font-semibold">{link.purpose === 'invite' ? 'Welcome to Gatehouse' : 'Choose a new password'}</h1>
              <p className="mt-2 text-slate-600">
                For the account of <span className="font-medium text-slate-900">{link.name}</span> ({link.email}). This link works once, until {exactTime(link.expiresAt)}.
                {link.purpose === 'reset' ? ' Setting a new password signs this account out of every browser.' : ''}
              </p>
            </div>
            <SetPasswordForm token={token} />
          </>
        ) : (
          <div className="space-y-3">
            <h1 className="text-2xl font-semibold">This link does not work</h1>
            <p role="alert" className="rounded bg-amber-50 px-3 py-2 text-amber-900">
              {GONE[link.state]}
            </p>
            <p className="text-slate-600">Ask an admin of your organization for a new link. If you know your password, you can still sign in.</p>
            <p>
              <a href="/login" className="font-medium text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
                Go to sign-in
              </a>
            </p>
          </div>
        )}
      </section>
    </NarrowColumn>
  );
}
