import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { callFilterParams, callInOrg, parseCallFilter } from '@/lib/audit/call-log-read';
import { outcomeCategoryLabel } from '@/lib/audit/call-outcomes';
import { orgPage } from '../../../page-access';
import { linkClass, PageHeading } from '../../../components';
import { AppLine, Detail, DetailList, personLine, When } from '../../log-cells';
import { backQuery } from '../../log-links';
import { OutcomeBadge } from '../outcome-badge';

export const metadata: Metadata = { title: 'Call · Admin' };

type Props = { params: Promise<{ org: string; id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function CallPage({ params, searchParams }: Props) {
  const { org, id } = await params;
  const admin = await orgPage(org, `/calls/${encodeURIComponent(id)}`, 'audit:read');
  const call = await callInOrg(admin.org.id, id);
  if (!call) notFound();
  const back = `/admin/${admin.org.slug}/calls${backQuery(await searchParams, parseCallFilter, callFilterParams)}`;
  const mono = (value: string | null) => (value ? <span className="font-mono text-sm break-all">{value}</span> : null);
  return (
    <div className="space-y-4">
      <p>
        <a href={back} className={linkClass}>
          ← Call log
        </a>
      </p>
      <PageHeading title={`Call ${call.method ?? '(no method)'}`}>
        Call {call.id.toString()} in {admin.org.name}.
      </PageHeading>
      <DetailList>
        <Detail term="When">
          <When at={call.at} />
        </Detail>
        <Detail term="Method">{mono(call.method)}</Detail>
        <Detail term="Tool">{mono(call.toolName)}</Detail>
        <Detail term="Outcome">
          <OutcomeBadge outcome={call.outcome} category={call.category} /> <span className="text-sm text-slate-600">{outcomeCategoryLabel(call.category)}</span>
        </Detail>
        <Detail term="HTTP status">
          <span className="tabular-nums">{call.httpStatus}</span>
        </Detail>
        <Detail term="Latency">{call.upstreamLatencyMs === null ? `${call.latencyMs} ms` : `${call.latencyMs} ms, of which the upstream ${call.upstreamLatencyMs} ms`}</Detail>
        {call.connector ? <Detail term="Connector">{mono(call.connector)}</Detail> : null}
        <Detail term="Person">{personLine(call.person)}</Detail>
        <Detail term="App">{call.client ? <AppLine client={call.client} /> : null}</Detail>
        <Detail term="Connection (grant)">{mono(call.grantId)}</Detail>
        <Detail term="Protocol version">{mono(call.protocolVersion)}</Detail>
        <Detail term="Trace id">{mono(call.traceId)}</Detail>
      </DetailList>
    </div>
  );
}
