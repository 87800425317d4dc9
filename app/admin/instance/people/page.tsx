import type { Metadata } from 'next';
import { instancePeople } from '@/lib/admin/instance-directory';
import { PageHeading } from '../../components';
import { instancePage } from '../../page-access';
import { Pagination, SearchForm } from '../search-and-pages';
import { PeopleTable } from './people-table';

export const metadata: Metadata = { title: 'People · Instance admin' };

type Props = { searchParams: Promise<{ q?: string; page?: string }> };

export default async function InstancePeoplePage({ searchParams }: Props) {
  const admin = await instancePage('/people');
  const { q, page } = await searchParams;
  const query = typeof q === 'string' ? q.slice(0, 200) : '';
  const result = await instancePeople(query, Number(page) || 1);
  return (
    <div className="space-y-4">
      <PageHeading title="People">Everyone with an account. A disabled person cannot sign in, is signed out everywhere at once, and their apps are refused at their next request.</PageHeading>
      <SearchForm label="Search people" placeholder="Name or email" query={query} />
      <PeopleTable
        key={`${query}|${result.page}`}
        me={admin.personId}
        query={query}
        people={result.rows.map((row) => ({
          ...row,
          disabledAt: row.disabledAt?.toISOString() ?? null,
          lockedUntil: row.lockedUntil?.toISOString() ?? null,
          lastSignInAt: row.lastSignInAt?.toISOString() ?? null,
        }))}
      />
      <Pagination base="/admin/instance/people" query={query} page={result.page} pages={result.pages} total={result.total} noun={['person', 'people']} />
    </div>
  );
}
