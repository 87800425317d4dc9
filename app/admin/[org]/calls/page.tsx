import type { Metadata } from 'next';
import { callFilterParams, callLogPage, parseCallFilter } from '@/lib/audit/call-log-read';
import { OUTCOME_CATEGORIES } from '@/lib/audit/call-outcomes';
import { logFacets } from '@/lib/audit/log-facets';
import { TOOLS } from '@/lib/mcp/tools';
import { DataTable, EmptyState, inputClass, PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { Field, FilterProblem, PersonAppAndDateFields, SelectField } from '../filter-fields';
import { FilterForm } from '../filter-form';
import { ClientCell, DetailsCell, PersonCell, When } from '../log-cells';
import { logPageState } from '../log-links';
import { ExportLinks, Pager } from '../log-paging';
import { OutcomeBadge } from './outcome-badge';

export const metadata: Metadata = { title: 'Call log · Admin' };

/** Suggestions for the method field; any method a client sent can be typed. */
const COMMON_METHODS = ['initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get'];

type Props = { params: Promise<{ org: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function CallLogPage({ params, searchParams }: Props) {
  const { org } = await params;
  const admin = await orgPage(org, '/calls', 'audit:read');
  const { shown, filter, problem, query, here } = logPageState(await searchParams, parseCallFilter, callFilterParams);
  const base = `/admin/${admin.org.slug}/calls`;
  const [facets, page] = await Promise.all([logFacets(admin.org.id), filter ? callLogPage(admin.org.id, filter) : null]);

  return (
    <div className="space-y-4">
      <PageHeading title="Call log" actions={filter ? <ExportLinks href={`${base}/export`} query={query} /> : null}>
        Every <code>/mcp</code> request made with a connection in {admin.org.name}, newest first.
      </PageHeading>
      <FilterForm key={new URLSearchParams(shown).toString()} label="Filter the call log" clearHref={base}>
        <Field id="filter-method" label="Method">
          <input id="filter-method" name="method" list="known-methods" defaultValue={shown.method ?? ''} className={inputClass} autoComplete="off" />
          <datalist id="known-methods">
            {COMMON_METHODS.map((method) => (
              <option key={method} value={method} />
            ))}
          </datalist>
        </Field>
        <SelectField id="filter-tool" name="tool" label="Tool" anyLabel="Any tool" value={shown.tool ?? ''} options={TOOLS.map((tool) => ({ value: tool.name, label: tool.name }))} />
        <SelectField
          id="filter-outcome"
          name="outcome"
          label="Outcome"
          anyLabel="Any outcome"
          value={shown.outcome ?? ''}
          options={OUTCOME_CATEGORIES.map((category) => ({ value: category.key, label: category.label }))}
        />
        <PersonAppAndDateFields facets={facets} shown={shown} />
      </FilterForm>
      {problem ? <FilterProblem message={problem} /> : null}
      {page && page.rows.length === 0 ? <EmptyState>No calls{query.size > 0 ? ' match this filter' : ' yet'}.</EmptyState> : null}
      {page && page.rows.length > 0 ? (
        <>
          <DataTable label="Calls" head={['When', 'Method', 'Tool', 'Outcome', 'Status', 'Person', 'App', 'Latency', '']}>
            {page.rows.map((row) => (
              <tr key={row.id.toString()}>
                <td className="px-3 py-2">
                  <When at={row.at} />
                </td>
                <td className="px-3 py-2 font-mono text-xs break-all">{row.method ?? '—'}</td>
                <td className="px-3 py-2 font-mono text-xs break-all">{row.toolName ?? '—'}</td>
                <td className="px-3 py-2">
                  <OutcomeBadge outcome={row.outcome} category={row.category} />
                </td>
                <td className="px-3 py-2 tabular-nums">{row.httpStatus}</td>
                <td className="px-3 py-2">
                  <PersonCell person={row.person} />
                </td>
                <td className="px-3 py-2">
                  <ClientCell client={row.client} />
                </td>
                <td className="px-3 py-2 text-right tabular-nums whitespace-nowrap">{row.latencyMs} ms</td>
                <DetailsCell base={base} id={row.id} what="call" here={here} />
              </tr>
            ))}
          </DataTable>
          <Pager query={query} newer={page.newer} older={page.older} />
        </>
      ) : null}
    </div>
  );
}
