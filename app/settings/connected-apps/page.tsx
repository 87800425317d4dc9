import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentPerson } from '@/lib/auth/session';
import { SettingsHeader } from '../settings-header';
import { connectedAppsOf } from '@/lib/connected-apps/grants';
import { ConnectedAppsList } from './connected-apps-list';

export const metadata: Metadata = { title: 'Connected apps' };
export const dynamic = 'force-dynamic';

export default async function ConnectedAppsPage() {
  const person = await currentPerson();
  if (!person) redirect(`/login?callbackUrl=${encodeURIComponent('/settings/connected-apps')}`);
  const apps = await connectedAppsOf(person.id);
  return (
    <div className="space-y-6">
      <SettingsHeader title="Connected apps">
        Apps you allowed to act for you. Revoking one disconnects it at once: its next request is refused.
      </SettingsHeader>
      <ConnectedAppsList
        apps={apps.map((app) => ({
          ...app,
          approvedAt: app.approvedAt.toISOString(),
          lastUsedAt: app.lastUsedAt?.toISOString() ?? null,
        }))}
      />
    </div>
  );
}
