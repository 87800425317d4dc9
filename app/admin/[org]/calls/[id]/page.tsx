import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { callFilterParams, callInOrg, parseCallFilter } from '@/lib/audit/call-log-read';
import { outcomeCategoryLabel } from '@/lib/audit/call-outcomes';
import { PageHeading } from '../../../components';
import { orgPage } from '../../../page-access';
import { DetailList, linkClass, When } from '../../log-controls';
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
      <DetailList
        items={[
          ['When', <When at={call.at} />],
          ['Method', mono(call.method)],
          ['Tool', mono(call.toolName)],
          [
            'Outcome',
            <span>
              <OutcomeBadge outcome={call.outcome} category={call.category} /> <span className="text-sm text-slate-600">{outcomeCategoryLabel(call.category)}</span>
            </span>,
          ],
          ['HTTP status', <span className="tabular-nums">{call.httpStatus}</span>],
          ['Latency', `${call.latencyMs} ms`],
          ['Person', call.person ? `${call.person.name}${call.person.email ? ` (${call.person.email})` : ''}` : null],
          ['App', call.client ? <span className="break-all">{call.client.name === call.client.id ? call.client.id : `${call.client.name} (${call.client.id})`}</span> : null],
          ['Connection (grant)', mono(call.grantId)],
          ['Protocol version', mono(call.protocolVersion)],
          ['Trace id', mono(call.traceId)],
        ]}
      />
    </div>
  );
}
