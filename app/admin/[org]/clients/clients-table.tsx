'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useToast } from '@/app/components/toast';
import type { OrgClientRow } from '@/lib/admin/org-clients';
import { AppGroupBody, type AppGroupView } from '../../app-group';
import { ClientIdentityCell, RedirectUrisCell, UsageCells } from '../../client-cells';
import { Badge, EmptyState, GroupedDataTable } from '../../components';
import { decideClientAction } from './actions';

type Row = Omit<OrgClientRow, 'firstSeenAt' | 'lastUsedAt'> & { firstSeenAt: string; lastUsedAt: string | null };
type Decision = 'approved' | 'blocked' | 'none';
type App = AppGroupView & { registrations: Row[] };

const HEAD = ['App', 'Redirect URIs', 'First seen', 'Last used', 'Connections', 'Decision', ''];

/** The org's registrations, listed under the app each belongs to. Decisions are still made per registration. */
export function ClientsTable({ org, apps: initial }: { org: string; apps: App[] }) {
  const [apps, setApps] = useState(initial);
  const [blocking, setBlocking] = useState<Row | null>(null);
  const [pending, startTransition] = useTransition();
  const notify = useToast();
  const router = useRouter();

  function decide(row: Row, decision: Decision) {
    startTransition(async () => {
      const outcome = await decideClientAction(org, { clientId: row.clientId, decision });
      setBlocking(null);
      if (!outcome.ok) return notify('error', outcome.error);
      setApps((current) =>
        current.map((app) => ({
          ...app,
          registrations: app.registrations.map((item) =>
            item.clientId === row.clientId ? { ...item, decision: decision === 'none' ? null : decision, liveGrants: decision === 'blocked' ? 0 : item.liveGrants } : item,
          ),
        })),
      );
      const revoked = outcome.value.revoked;
      notify(
        'ok',
        decision === 'approved'
          ? `${row.name} is approved.`
          : decision === 'blocked'
            ? `${row.name} is blocked${revoked ? `; ${revoked} connection${revoked === 1 ? '' : 's'} ended` : ''}.`
            : `${row.name} is no longer approved or blocked.`,
      );
      router.refresh();
    });
  }

  if (apps.length === 0) return <EmptyState>No app has been connected in this organization yet.</EmptyState>;
  return (
    <>
      <GroupedDataTable label="Clients seen in the organization" head={HEAD}>
        {apps.map((app) => (
          <AppGroupBody key={app.appId ?? app.registrations[0]!.clientId} app={app} columns={HEAD.length}>
            {app.registrations.map((row) => (
              <tr key={row.clientId}>
                <ClientIdentityCell name={row.name} registration={row.registration} clientId={row.clientId} badge={row.disabled ? <Badge tone="bad">Disabled instance-wide</Badge> : null} />
                <RedirectUrisCell uris={row.redirectUris} hostname={row.hostname} />
                <UsageCells firstSeenAt={row.firstSeenAt} lastUsedAt={row.lastUsedAt} liveGrants={row.liveGrants} />
                <td className="px-3 py-2 align-top">
                  {row.decision === 'approved' ? <Badge tone="good">Approved</Badge> : row.decision === 'blocked' ? <Badge tone="bad">Blocked</Badge> : <Badge>No decision</Badge>}
                </td>
                <td className="px-3 py-2 align-top">
                  <div className="flex flex-wrap justify-end gap-2">
                    {row.decision !== 'approved' ? (
                      <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(row, 'approved')}>
                        Approve<span className="sr-only"> {row.name}</span>
                      </button>
                    ) : null}
                    {row.decision !== 'blocked' ? (
                      <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setBlocking(row)}>
                        Block<span className="sr-only"> {row.name}</span>
                      </button>
                    ) : null}
                    {row.decision ? (
                      <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(row, 'none')}>
                        Clear<span className="sr-only"> the decision on {row.name}</span>
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </AppGroupBody>
        ))}
      </GroupedDataTable>
      <ConfirmDialog
        open={blocking !== null}
        title={`Block ${blocking?.name ?? ''}?`}
        confirmLabel="Block"
        pendingLabel="Blocking…"
        pending={pending}
        onConfirm={() => blocking && decide(blocking, 'blocked')}
        onCancel={() => setBlocking(null)}
      >
        <p>
          Nobody in this organization will be able to connect {blocking?.name}
          {blocking?.liveGrants ? `, and its ${blocking.liveGrants} live connection${blocking.liveGrants === 1 ? '' : 's'} end at once` : ''}.
        </p>
      </ConfirmDialog>
    </>
  );
}
