import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentSignIn } from '@/lib/auth/session';
import { liveSessionsOf } from '@/lib/auth/sign-in-sessions';
import { SettingsHeader } from '../settings-header';
import { PasswordForm } from './password-form';
import { SessionsList } from './sessions-list';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const signIn = await currentSignIn();
  if (!signIn) redirect(`/login?callbackUrl=${encodeURIComponent('/settings/account')}`);
  const { person, sessionId } = signIn;
  const sessions = await liveSessionsOf(person.id);
  return (
    <div className="space-y-8">
      <SettingsHeader title="Account">
        {person.name} · {person.email}
      </SettingsHeader>
      <section className="max-w-md space-y-3" aria-labelledby="password-heading">
        <h2 id="password-heading" className="text-lg font-semibold">
          Change password
        </h2>
        <p className="text-sm text-slate-600">Changing it signs you out everywhere else.</p>
        <PasswordForm />
      </section>
      <section className="space-y-3" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading" className="text-lg font-semibold">
          Where you are signed in
        </h2>
        <SessionsList
          current={sessionId}
          sessions={sessions.map((session) => ({
            id: session.id,
            ip: session.ip,
            device: describeUserAgent(session.userAgent),
            createdAt: session.createdAt.toISOString(),
            lastSeenAt: session.lastSeenAt.toISOString(),
          }))}
        />
      </section>
    </div>
  );
}

/** "Chrome on Linux" from a user-agent string: enough to recognise one's own devices. */
function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : /curl|node|undici/i.test(userAgent)
            ? 'A program'
            : 'A browser';
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Mac OS X/.test(userAgent)
        ? 'macOS'
        : /Windows/.test(userAgent)
          ? 'Windows'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  return system ? `${browser} on ${system}` : browser;
}
