import type { Metadata } from 'next';
import { orgClientApps, unapprovedConnections } from '@/lib/admin/org-clients';
import { hasPermission } from '@/lib/auth/permissions';
import { appGroupView } from '../../app-group';
import { PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { AppPolicyForm } from './app-policy-form';
import { ClientsTable } from './clients-table';
import { RegisterClientForm } from './register-client-form';

export const metadata: Metadata = { title: 'Clients · Admin' };

export default async function OrgClientsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/clients', 'apps:manage');
  const [apps, unapproved] = await Promise.all([orgClientApps(admin.org.id), unapprovedConnections(admin.org.id)]);
  return (
    <div className="space-y-8">
      <PageHeading title="Clients">Every app seen in {admin.org.name}, with the registrations its users made listed under it: approve the ones you trust, block the others.</PageHeading>
      <AppPolicyForm org={admin.org.slug} policy={admin.org.appPolicy} unapprovedConnections={unapproved} />
      <ClientsTable
        org={admin.org.slug}
        apps={apps.map((app) => appGroupView(app, (client) => ({ ...client, firstSeenAt: client.firstSeenAt.toISOString(), lastUsedAt: client.lastUsedAt?.toISOString() ?? null })))}
      />
      {hasPermission(admin, 'clients:register') ? <RegisterClientForm org={admin.org.slug} /> : null}
    </div>
  );
}
