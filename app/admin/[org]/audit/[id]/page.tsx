import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { auditFilterParams, parseAuditFilter } from '@/lib/audit/filter';
import { auditEventInOrg } from '@/lib/audit/read';
import { orgPage } from '../../../page-access';
import { linkClass, PageHeading } from '../../../components';
import { AppLine, Detail, DetailList, personLine, When } from '../../log-cells';
import { backQuery } from '../../log-links';

export const metadata: Metadata = { title: 'Audit event · Admin' };

type Props = { params: Promise<{ org: string; id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function AuditEventPage({ params, searchParams }: Props) {
  const { org, id } = await params;
  const admin = await orgPage(org, `/audit/${encodeURIComponent(id)}`, 'audit:read');
  const event = await auditEventInOrg(admin.org.id, id);
  if (!event) notFound();
  const back = `/admin/${admin.org.slug}/audit${backQuery(await searchParams, parseAuditFilter, auditFilterParams)}`;
  return (
    <div className="space-y-4">
      <p>
        <a href={back} className={linkClass}>
          ← Audit log
        </a>
      </p>
      <PageHeading title={`Event ${event.type}`}>
        Event {event.id.toString()} in {admin.org.name}.
      </PageHeading>
      <DetailList>
        <Detail term="Event type">
          <span className="font-mono text-sm">{event.type}</span>
        </Detail>
        <Detail term="When">
          <When at={event.at} />
        </Detail>
        <Detail term="Person">{personLine(event.actor, 'Gatehouse itself')}</Detail>
        <Detail term="App">{event.client ? <AppLine client={event.client} /> : null}</Detail>
        <Detail term="Connection (grant)">{event.grantId ? <span className="font-mono text-sm break-all">{event.grantId}</span> : null}</Detail>
        <Detail term="Address">{event.ip ? <span className="font-mono text-sm">{event.ip}</span> : null}</Detail>
        <Detail term="Details">
          <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs">
            <code>{JSON.stringify(event.data, null, 2)}</code>
          </pre>
        </Detail>
      </DetailList>
    </div>
  );
}
