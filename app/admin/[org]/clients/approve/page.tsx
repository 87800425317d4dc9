import type { Metadata } from 'next';
import { instanceAppsForOrg } from '@/lib/apps/directory';
import { PageHeading } from '../../../components';
import { Pagination, SearchForm } from '../../../instance/search-and-pages';
import { orgPage } from '../../../page-access';
import { pendingCount } from '@/lib/apps/requests';
import { ClientsTabs } from '../clients-tabs';
import { ApproveAheadTable } from './approve-ahead-table';
import { DocumentUrlForm } from './document-url-form';

export const metadata: Metadata = { title: 'Approve ahead · Admin' };

type Props = { params: Promise<{ org: string }>; searchParams: Promise<{ q?: string; page?: string }> };

export default async function ApproveAheadPage({ params, searchParams }: Props) {
  const { org } = await params;
  const admin = await orgPage(org, '/clients/approve', 'apps:manage');
  const { q, page } = await searchParams;
  const query = typeof q === 'string' ? q.slice(0, 200) : '';
  const [result, pending] = await Promise.all([instanceAppsForOrg(admin.org.id, query, Number(page) || 1), pendingCount(admin.org.id)]);
  const base = `/admin/${encodeURIComponent(admin.org.slug)}/clients/approve`;
  return (
    <div className="space-y-6">
      <PageHeading title="Approve ahead">
        Approve an app before anyone in {admin.org.name} connects it, so that it can be connected under <em>approved apps only</em>: pick it among the self-registered and metadata-document apps seen
        on this Gatehouse, or give the URL of its metadata document. Apps other organizations registered by hand are never listed.
      </PageHeading>
      <ClientsTabs org={admin.org.slug} current="approve" pending={pending} />
      <DocumentUrlForm org={admin.org.slug} />
      <section aria-labelledby="seen-heading" className="space-y-3">
        <h2 id="seen-heading" className="text-lg font-semibold">
          Apps seen on this Gatehouse
        </h2>
        <SearchForm label="Search apps" placeholder="Name, host, scheme or document URL" query={query} />
        <ApproveAheadTable
          key={`${query}|${result.page}`}
          org={admin.org.slug}
          query={query}
          apps={result.rows.map((app) => ({
            appId: app.appId,
            name: app.name,
            kind: app.kind,
            evidence: app.evidence,
            registrationCount: app.registrationCount,
            lastSeenAt: app.lastSeenAt.toISOString(),
            decision: app.standing?.decision ?? null,
            blockedThrough: app.standing?.block && app.standing.block.shared.length > 0 ? app.standing.block.appName : null,
            blockedEverywhere: Boolean(app.standing?.blockedEverywhere),
          }))}
        />
        <Pagination base={base} query={query} page={result.page} pages={result.pages} total={result.total} noun={['app', 'apps']} />
      </section>
    </div>
  );
}
