import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { auditFilterParams, parseAuditFilter } from '@/lib/audit/filter';
import { auditEventInOrg } from '@/lib/audit/read';
import { PageHeading } from '../../../components';
import { orgPage } from '../../../page-access';
import { DetailList, linkClass, When } from '../../log-controls';
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
      <DetailList
        items={[
          ['Event type', <span className="font-mono text-sm">{event.type}</span>],
          ['When', <When at={event.at} />],
          ['Person', event.actor ? `${event.actor.name}${event.actor.email ? ` (${event.actor.email})` : ''}` : 'Gatehouse itself'],
          ['App', event.client ? <span className="break-all">{event.client.name === event.client.id ? event.client.id : `${event.client.name} (${event.client.id})`}</span> : null],
          ['Connection (grant)', event.grantId ? <span className="font-mono text-sm break-all">{event.grantId}</span> : null],
          ['Address', event.ip ? <span className="font-mono text-sm">{event.ip}</span> : null],
          [
            'Details',
            <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs">
              <code>{JSON.stringify(event.data, null, 2)}</code>
            </pre>,
          ],
        ]}
      />
    </div>
  );
}
