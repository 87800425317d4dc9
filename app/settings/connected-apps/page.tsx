import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { ConnectCard } from '@/app/components/connect-card';
import { currentPerson } from '@/lib/auth/session';
import { SettingsHeader } from '../settings-header';
import { grantsOfPerson } from '@/lib/grants/list';
import { MCP_SCOPES } from '@/lib/oauth/scopes';
import { ConnectedAppsList } from './connected-apps-list';

export const metadata: Metadata = { title: 'Connected apps' };
export const dynamic = 'force-dynamic';

export default async function ConnectedAppsPage() {
  const person = await currentPerson();
  if (!person) redirect(`/login?callbackUrl=${encodeURIComponent('/settings/connected-apps')}`);
  const apps = await grantsOfPerson(person.id);
  return (
    <div className="space-y-6">
      <SettingsHeader title="Connected apps">Apps you allowed to act for you. Revoking one disconnects it at once: its next request is refused.</SettingsHeader>
      <ConnectedAppsList
        empty={<ConnectCard />}
        apps={apps.map((app) => ({
          grantId: app.grantId,
          clientName: app.clientName,
          unverified: app.unverified,
          hostname: app.hostname,
          orgName: app.orgName,
          scopes: app.scopes.map((scope) => MCP_SCOPES[scope]),
          approvedAt: app.approvedAt.toISOString(),
          lastUsedAt: app.lastUsedAt?.toISOString() ?? null,
        }))}
      />
    </div>
  );
}
