import type { Metadata } from 'next';
import { relativeTime } from '@/app/components/relative-time';
import { instanceOrgs } from '@/lib/admin/instance-directory';
import { Badge, DataTable, EmptyState, PageHeading } from '../../components';
import { instancePage } from '../../page-access';
import { CreateOrganizationForm } from './create-organization-form';

export const metadata: Metadata = { title: 'Organizations · Instance admin' };

export default async function InstanceOrganizationsPage() {
  await instancePage('/organizations');
  const orgs = await instanceOrgs();
  return (
    <div className="space-y-8">
      <PageHeading title="Organizations">Every organization of this installation. Its owners and admins manage it from its own console.</PageHeading>
      {orgs.length === 0 ? (
        <EmptyState>No organization yet.</EmptyState>
      ) : (
        <DataTable label="Organizations of the installation" head={['Organization', 'Owners', 'Members', 'Plan', 'App policy', 'Connections', 'Created']}>
          {orgs.map((org) => (
            <tr key={org.id}>
              <td className="px-3 py-2 align-top">
                <span className="font-medium">{org.name}</span>
                <span className="block font-mono text-xs text-slate-500">/admin/{org.slug}</span>
              </td>
              <td className="px-3 py-2 align-top">{org.owners.length ? org.owners.join(', ') : <span className="text-slate-500">none</span>}</td>
              <td className="px-3 py-2 align-top whitespace-nowrap">
                {org.activeMembers}
                {org.deactivatedMembers ? <span className="block text-xs text-slate-500">+{org.deactivatedMembers} deactivated</span> : null}
              </td>
              <td className="px-3 py-2 align-top">{org.planStatus === 'active' ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</td>
              <td className="px-3 py-2 align-top">{org.appPolicy === 'open' ? 'Any app' : 'Approved apps only'}</td>
              <td className="px-3 py-2 align-top">{org.liveGrants}</td>
              <td className="px-3 py-2 align-top whitespace-nowrap">{relativeTime(org.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <CreateOrganizationForm />
    </div>
  );
}
