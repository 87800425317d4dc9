import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { ConnectCard } from '@/app/components/connect-card';
import type { OutcomeCategory } from '@/lib/audit/call-outcomes';
import { orgOverview, OVERVIEW_DAYS, type DailyChart } from '@/lib/admin/overview';
import { DataTable, EmptyState, linkClass, PageHeading } from '../components';
import { orgPage } from '../page-access';
import { CallsChart, type ChartSeries } from './calls-chart';
import { ClientCell, PersonCell, When } from './log-cells';

export const metadata: Metadata = { title: 'Overview · Admin' };

const OUTCOME_COLORS: Record<OutcomeCategory, string> = {
  ok: '#15803d',
  refused_scope: '#d97706',
  refused_role: '#c2410c',
  rate_limited: '#7c3aed',
  unauthorized: '#dc2626',
  forbidden: '#be185d',
  connector: '#0e7490',
  other: '#64748b',
};
const APP_COLORS = ['#1f4b7a', '#0891b2', '#65a30d', '#c026d3', '#ea580c'];
const OTHER_APPS_COLOR = '#94a3b8';

export default async function OverviewPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '', 'audit:read');
  const overview = await orgOverview(admin.org.id);
  const base = `/admin/${admin.org.slug}`;
  const appSeries = overview.byClient.series.map((series, index) => ({ ...series, color: series.key === 'others' ? OTHER_APPS_COLOR : APP_COLORS[index % APP_COLORS.length]! }));
  const outcomeSeries = overview.byOutcome.series.map((series) => ({ ...series, color: OUTCOME_COLORS[series.key as OutcomeCategory] }));

  return (
    <div className="space-y-6">
      <PageHeading title="Overview">
        {admin.org.name} over the last {OVERVIEW_DAYS} days (days in UTC).
      </PageHeading>
      <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label={`/mcp calls, ${OVERVIEW_DAYS} days`} value={overview.totalCalls} href={`${base}/calls`} />
        <StatCard label="Calls not served" value={overview.unservedCalls} href={`${base}/calls`} />
        <StatCard label="Active connections" value={overview.activeGrants} />
        <StatCard label={`New apps, ${OVERVIEW_DAYS} days`} value={overview.newClients.count} />
      </dl>

      {/* No one in the org has connected an app yet (or every connection ended): how to start. */}
      {overview.activeGrants === 0 ? <ConnectCard /> : null}

      {overview.totalCalls === 0 ? (
        <EmptyState>No /mcp calls in the last {OVERVIEW_DAYS} days. Charts appear once a connected app calls Gatehouse.</EmptyState>
      ) : (
        <div className="grid gap-6 xl:grid-cols-2">
          <ChartSection id="chart-by-app" title="Calls per day by app" chart={overview.byClient} series={appSeries} />
          <ChartSection id="chart-by-outcome" title="Calls per day by outcome" chart={overview.byOutcome} series={outcomeSeries} />
        </div>
      )}

      <section aria-labelledby="new-apps" className="space-y-2">
        <h2 id="new-apps" className="text-lg font-semibold">
          New apps
        </h2>
        {overview.newClients.latest.length === 0 ? (
          <p className="text-slate-600">
            No app was connected in {admin.org.name} for the first time in the last {OVERVIEW_DAYS} days.
          </p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white shadow-sm">
            {overview.newClients.latest.map((client) => (
              <li key={client.clientId} className="flex flex-wrap justify-between gap-2 px-3 py-2">
                <span className="font-medium break-all">{client.name}</span>
                <span className="text-sm text-slate-600">
                  first seen <When at={client.firstSeenAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="latest-events" className="space-y-2">
        <div className="flex items-baseline justify-between gap-2">
          <h2 id="latest-events" className="text-lg font-semibold">
            Latest security events
          </h2>
          <a href={`${base}/audit`} className={linkClass}>
            Open the audit log
          </a>
        </div>
        {overview.latestEvents.length === 0 ? (
          <EmptyState>No security events yet.</EmptyState>
        ) : (
          <DataTable label="Latest security events" head={['When', 'Event', 'Person', 'App', '']}>
            {overview.latestEvents.map((event) => (
              <tr key={event.id.toString()}>
                <td className="px-3 py-2">
                  <When at={event.at} />
                </td>
                <td className="px-3 py-2 font-mono text-xs">{event.type}</td>
                <td className="px-3 py-2">
                  <PersonCell person={event.actor} />
                </td>
                <td className="px-3 py-2">
                  <ClientCell client={event.client} />
                </td>
                <td className="px-3 py-2 text-right">
                  <a href={`${base}/audit/${event.id}`} className={linkClass}>
                    Details<span className="sr-only"> of event {event.id.toString()}</span>
                  </a>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </div>
  );
}

function StatCard({ label, value, href }: { label: string; value: number; href?: string }) {
  const number = <span className="text-3xl font-semibold tabular-nums">{value.toLocaleString('en')}</span>;
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd className="mt-1">
        {href ? (
          <a href={href} className="focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
            {number}
          </a>
        ) : (
          number
        )}
      </dd>
    </div>
  );
}

/** A chart with its numbers as a table for people who cannot see it (days without calls left out). */
function ChartSection({ id, title, chart, series }: { id: string; title: string; chart: DailyChart; series: ChartSeries[] }): ReactNode {
  const busyDays = chart.rows.filter((row) => series.some(({ key }) => (row[key] as number) > 0));
  const total = (row: Record<string, unknown>) => series.reduce((sum, { key }) => sum + ((row[key] as number) ?? 0), 0);
  return (
    <section aria-labelledby={`${id}-title`} className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id={`${id}-title`} className="text-lg font-semibold">
        {title}
      </h2>
      <figure aria-label={`${title}, last ${OVERVIEW_DAYS} days (bar chart; the numbers are in the table below)`} data-chart={id}>
        <CallsChart label={`${title}, last ${OVERVIEW_DAYS} days`} series={series} rows={chart.rows} />
      </figure>
      <details>
        <summary className="cursor-pointer text-sm text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">Show the numbers</summary>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left text-sm" aria-label={`${title} (numbers)`}>
            <thead className="bg-slate-100">
              <tr>
                <th scope="col" className="px-2 py-1 font-medium">
                  Day
                </th>
                {series.map(({ key, label }) => (
                  <th key={key} scope="col" className="px-2 py-1 font-medium">
                    {label}
                  </th>
                ))}
                <th scope="col" className="px-2 py-1 font-medium">
                  Total
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {busyDays.map((row) => (
                <tr key={row.day}>
                  <th scope="row" className="px-2 py-1 font-normal whitespace-nowrap">
                    {row.day}
                  </th>
                  {series.map(({ key }) => (
                    <td key={key} className="px-2 py-1 tabular-nums">
                      {row[key]}
                    </td>
                  ))}
                  <td className="px-2 py-1 tabular-nums">{total(row)}</td>
                </tr>
              ))}
              <tr className="font-medium">
                <th scope="row" className="px-2 py-1">
                  All {OVERVIEW_DAYS} days
                </th>
                {series.map(({ key }) => (
                  <td key={key} className="px-2 py-1 tabular-nums">
                    {chart.totals[key]}
                  </td>
                ))}
                <td className="px-2 py-1 tabular-nums">{total(chart.totals)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
