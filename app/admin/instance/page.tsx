import type { Metadata } from 'next';
import { instanceClients } from '@/lib/admin/instance-clients';
import { appGroupView } from '../app-group';
import { PageHeading } from '../components';
import { instancePage } from '../page-access';
import { InstanceClientsTable } from './instance-clients-table';
import { Pagination, SearchForm } from './search-and-pages';

export const metadata: Metadata = { title: 'Clients · Instance admin' };

type Props = { searchParams: Promise<{ q?: string; page?: string }> };

export default async function InstanceClientsPage({ searchParams }: Props) {
  await instancePage('');
  const { q, page } = await searchParams;
  const query = typeof q === 'string' ? q.slice(0, 200) : '';
  const result = await instanceClients(query, Number(page) || 1);
  return (
    <div className="space-y-4">
      <PageHeading title="Clients">
        Every OAuth client of this installation, listed under the app it belongs to. Disabling one refuses new authorizations and its tokens at their next use; deleting one also revokes every
        connection.
      </PageHeading>
      <SearchForm label="Search clients" placeholder="Name or client ID" query={query} />
      <InstanceClientsTable
        key={`${query}|${result.page}`}
        query={query}
        apps={result.apps.map((app) => ({
          ...appGroupView(app, (row) => ({
            ...row,
            firstSeenAt: row.firstSeenAt.toISOString(),
            lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
            disabledAt: row.disabledAt?.toISOString() ?? null,
          })),
          blockedEverywhere: app.blockedEverywhere,
        }))}
      />
      <Pagination base="/admin/instance" query={query} page={result.page} pages={result.pages} total={result.total} noun={['client', 'clients']} />
    </div>
  );
}
