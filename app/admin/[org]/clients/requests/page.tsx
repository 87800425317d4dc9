import type { Metadata } from 'next';
import { exactTime } from '@/app/components/relative-time';
import { listRequests, pendingCount } from '@/lib/apps/requests';
import { Badge, DataTable, EmptyState, PageHeading } from '../../../components';
import { orgPage } from '../../../page-access';
import { ClientsTabs } from '../clients-tabs';
import { RequestButtons } from './request-buttons';

export const metadata: Metadata = { title: 'Requests · Clients · Admin' };

const STATUS_TONE = { approved: 'good', declined: 'bad', expired: 'neutral', pending: 'neutral' } as const;

export default async function OrgRequestsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/clients/requests', 'apps:manage');
  const [pending, decided, count] = await Promise.all([listRequests(admin, 'pending'), listRequests(admin, 'decided'), pendingCount(admin.org.id)]);
  return (
    <div className="space-y-8">
      <PageHeading title="Requests">
        Members of {admin.org.name} ask here for apps that the &quot;approved apps only&quot; policy refuses. Approving a request approves the app for the whole organization (every pending request for
        it is answered with it); the person then connects it again from the app. A request nobody answers expires after 30 days.
      </PageHeading>
      <ClientsTabs org={admin.org.slug} current="requests" pending={count} />

      <section aria-labelledby="pending-heading" className="space-y-3">
        <h2 id="pending-heading" className="text-lg font-semibold">
          Waiting for an answer
        </h2>
        {pending.length === 0 ? (
          <EmptyState>No request waits for an answer.</EmptyState>
        ) : (
          <DataTable label="Pending requests" head={['Person', 'App', 'Note', 'Asked', 'Expires', '']}>
            {pending.map((request) => (
              <tr key={request.id} data-request={request.id} className="align-top">
                <td className="px-3 py-2">
                  <span className="font-medium">{request.person.name}</span>
                  <span className="block text-slate-600">{request.person.email}</span>
                </td>
                <td className="px-3 py-2">
                  <span className="font-medium">{request.app.name}</span>
                  <span className="block text-slate-600">{request.app.evidence}</span>
                </td>
                <td className="max-w-xs px-3 py-2 whitespace-pre-wrap break-words" data-testid="request-note">
                  {request.note ?? <span className="text-slate-500">No note</span>}
                </td>
                <td className="px-3 py-2 whitespace-nowrap">{exactTime(request.askedAt)}</td>
                <td className="px-3 py-2 whitespace-nowrap">{exactTime(request.expiresAt)}</td>
                <td className="px-3 py-2">
                  <RequestButtons org={admin.org.slug} requestId={request.id} person={request.person.name} app={request.app.name} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <section aria-labelledby="decided-heading" className="space-y-3">
        <h2 id="decided-heading" className="text-lg font-semibold">
          Answered and expired
        </h2>
        {decided.length === 0 ? (
          <EmptyState>No request has been answered yet.</EmptyState>
        ) : (
          <DataTable label="Decided requests (latest 50)" head={['Person', 'App', 'Note', 'Asked', 'Outcome']}>
            {decided.map((request) => (
              <tr key={request.id} data-request={request.id} className="align-top">
                <td className="px-3 py-2">
                  <span className="font-medium">{request.person.name}</span>
                  <span className="block text-slate-600">{request.person.email}</span>
                </td>
                <td className="px-3 py-2">{request.app.name}</td>
                <td className="max-w-xs px-3 py-2 whitespace-pre-wrap break-words">{request.note ?? <span className="text-slate-500">No note</span>}</td>
                <td className="px-3 py-2 whitespace-nowrap">{exactTime(request.askedAt)}</td>
                <td className="px-3 py-2">
                  <Badge tone={STATUS_TONE[request.status]}>{request.status[0]!.toUpperCase() + request.status.slice(1)}</Badge>
                  <span className="block text-slate-600">
                    {request.decidedByName ? `by ${request.decidedByName}` : null}
                    {request.decidedAt ? ` ${exactTime(request.decidedAt)}` : null}
                  </span>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </div>
  );
}
