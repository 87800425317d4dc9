import type { Metadata } from 'next';
import { auditFilterParams, parseAuditFilter } from '@/lib/audit/filter';
import { auditEventTypes, auditLogPage } from '@/lib/audit/read';
import { logFacets } from '@/lib/audit/log-facets';
import { DataTable, EmptyState, PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { FilterProblem, PersonAppAndDateFields, SelectField } from '../filter-fields';
import { FilterForm } from '../filter-form';
import { ClientCell, DetailsCell, PersonCell, When } from '../log-cells';
import { logPageState } from '../log-links';
import { ExportLinks, Pager } from '../log-paging';

export const metadata: Metadata = { title: 'Audit log · Admin' };

type Props = { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function AuditLogPage({ params, searchParams }: Props) {
  const { org } = await params;
  const admin = await orgPage(org, '/audit', 'audit:read');
  const { shown, filter, problem, query, here } = logPageState(await searchParams, parseAuditFilter, auditFilterParams);
  const base = `/admin/${admin.org.slug}/audit`;
  const [types, facets, page] = await Promise.all([auditEventTypes(admin.org.id), logFacets(admin.org.id), filter ? auditLogPage(admin.org.id, filter) : null]);
  const filtered = query.size > 0;

  return (
    <div className="space-y-4">
      <PageHeading title="Audit log" actions={filter ? <ExportLinks href={`${base}/export`} query={query} /> : null}>
        Security events in {admin.org.name}: consents, tokens, revocations and admin changes, newest first.
      </PageHeading>
      <FilterForm key={new URLSearchParams(shown).toString()} label="Filter the audit log" clearHref={base}>
        <SelectField id="filter-type" name="type" label="Event type" anyLabel="Every type" value={shown.type ?? ''} options={types.map((type) => ({ value: type, label: type }))} />
        <PersonAppAndDateFields facets={facets} shown={shown} />
      </FilterForm>
      {problem ? <FilterProblem message={problem} /> : null}
      {page && page.rows.length === 0 ? <EmptyState>No audit events{filtered ? ' match this filter' : ' yet'}.</EmptyState> : null}
      {page && page.rows.length > 0 ? (
        <>
          <DataTable label="Audit events" head={['When', 'Event', 'Person', 'App', 'Address', '']}>
            {page.rows.map((row) => (
              <tr key={row.id.toString()}>
                <td className="px-3 py-2">
                  <When at={row.at} />
                </td>
                <td className="px-3 py-2 font-mono text-xs">{row.type}</td>
                <td className="px-3 py-2">
                  <PersonCell person={row.actor} />
                </td>
                <td className="px-3 py-2">
                  <ClientCell client={row.client} />
                </td>
                <td className="px-3 py-2 font-mono text-xs">{row.ip ?? '—'}</td>
                <DetailsCell base={base} id={row.id} what="event" here={here} />
              </tr>
            ))}
          </DataTable>
          <Pager query={query} newer={page.newer} older={page.older} />
        </>
      ) : null}
    </div>
  );
}
