import type { Metadata } from 'next';
import { grantsOfOrg, orgGrantFacets } from '@/lib/grants/list';
import { orgPage } from '../../page-access';
import { OrgGrantsTable } from './org-grants-table';

export const metadata: Metadata = { title: 'Connected apps · Admin' };

/** The page shows the newest 500 grants; the filters narrow it down. */
const CONSOLE_GRANT_LIMIT = 500;

type Props = { params: Promise<{ org: string }>; searchParams: Promise<{ person?: string; client?: string }> };

export default async function OrgConnectedAppsPage({ params, searchParams }: Props) {
  const { org } = await params;
  const admin = await orgPage(org, '/connected-apps', 'apps:manage');
  const { person, client } = await searchParams;
  const filter = { personId: typeof person === 'string' ? person : undefined, clientId: typeof client === 'string' ? client : undefined };
  const [grants, facets] = await Promise.all([grantsOfOrg(admin.org.id, filter, CONSOLE_GRANT_LIMIT), orgGrantFacets(admin.org.id)]);
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Connected apps</h1>
        <p className="text-slate-600">Every app a member of {admin.org.name} connected. Revoking one refuses its very next request.</p>
      </div>
      <OrgGrantsTable
        key={`${filter.personId ?? ''}|${filter.clientId ?? ''}`}
        org={admin.org.slug}
        filter={filter}
        facets={facets}
        grants={grants.rows.map((grant) => ({ ...grant, approvedAt: grant.approvedAt.toISOString(), lastUsedAt: grant.lastUsedAt?.toISOString() ?? null }))}
      />
    </div>
  );
}
