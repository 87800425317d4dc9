import type { Metadata } from 'next';
import { orgClientApps, unapprovedConnections } from '@/lib/admin/org-clients';
import { pendingCount } from '@/lib/apps/requests';
import { hasPermission } from '@/lib/auth/permissions';
import { appGroupView } from '../../app-group';
import { PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { AppPolicyForm } from './app-policy-form';
import { ClientsTabs } from './clients-tabs';
import { ClientsTable } from './clients-table';
import { RegisterClientForm } from './register-client-form';

export const metadata: Metadata = { title: 'Clients · Admin' };

export default async function OrgClientsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/clients', 'apps:manage');
  const [apps, unapproved, requests] = await Promise.all([orgClientApps(admin.org.id), unapprovedConnections(admin.org.id), pendingCount(admin.org.id)]);
  return (
    <div className="space-y-8">
      <PageHeading title="Clients">
        Every app seen in {admin.org.name}, with the registrations its users made listed under it. Decisions are on apps: an approval covers exactly that app, a block covers it and every app that
        redirects to the same hosts or schemes, including registrations made after it.
      </PageHeading>
      <ClientsTabs org={admin.org.slug} current="apps" pending={requests} />
      <AppPolicyForm org={admin.org.slug} policy={admin.org.appPolicy} unapprovedConnections={unapproved} />
      <ClientsTable
        org={admin.org.slug}
        apps={apps.map((app) => ({
          ...appGroupView(app, (client) => ({ ...client, firstSeenAt: client.firstSeenAt.toISOString(), lastUsedAt: client.lastUsedAt?.toISOString() ?? null })),
          standing: app.standing ? { decision: app.standing.decision, block: withoutTime(app.standing.block), blockedEverywhere: withoutTime(app.standing.blockedEverywhere) } : null,
          matchedByNameOnly: app.matchedByNameOnly,
          alsoCovers: app.alsoCovers,
        }))}
      />
      {hasPermission(admin, 'clients:register') ? <RegisterClientForm org={admin.org.slug} /> : null}
    </div>
  );
}

/** A block as the client table receives it: without its time, which the table does not show. */
function withoutTime<T extends { decidedAt: Date }>(block: T | null): Omit<T, 'decidedAt'> | null {
  if (!block) return null;
  const { decidedAt: _time, ...rest } = block;
  return rest;
}
