'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { exactTime } from '@/app/components/relative-time';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { InstanceClientRow } from '@/lib/admin/instance-clients';
import { AppGroupBody, type AppGroupView, answeredText, endedText } from '../app-group';
import { ClientIdentityCell, RedirectUrisCell, UsageCells } from '../client-cells';
import { Badge, EmptyState, GroupedDataTable } from '../components';
import { blockAppEverywhereAction, deleteClientAction, disableClientAction, enableClientAction } from './actions';

type Row = Omit<InstanceClientRow, 'firstSeenAt' | 'lastUsedAt' | 'disabledAt'> & { firstSeenAt: string; lastUsedAt: string | null; disabledAt: string | null };
type Pending = { kind: 'disable' | 'delete'; row: Row };
type App = AppGroupView & { registrations: Row[]; blockedEverywhere: boolean };

const HEAD = ['Client', 'Redirect URIs', 'First seen', 'Last used', 'Connections', 'Organizations', ''];

const label = (row: Row) => row.name ?? row.clientId;

/** A page of the installation's registrations, listed under the app each belongs to. */
export function InstanceClientsTable({ apps: initial, query }: { apps: App[]; query: string }) {
  const [apps, setApps] = useState(initial);
  /** Applies `change` to each registration; an app left with none on this page is no longer listed. */
  const setRows = (change: (rows: Row[]) => Row[]) => setApps((current) => current.map((app) => ({ ...app, registrations: change(app.registrations) })).filter((app) => app.registrations.length > 0));
  const [confirming, setConfirming] = useState<Pending | null>(null);
  const [blockingApp, setBlockingApp] = useState<App | null>(null);
  const { pending, run } = useConsoleAction();
  const closeConfirmation = () => setConfirming(null);

  function disable(row: Row) {
    run(() => disableClientAction({ clientId: row.clientId }), {
      settled: closeConfirmation,
      done: () => {
        setRows((current) => current.map((item) => (item.clientId === row.clientId ? { ...item, disabledAt: new Date().toISOString() } : item)));
        return `${label(row)} is disabled.`;
      },
    });
  }

  function enable(row: Row) {
    run(() => enableClientAction({ clientId: row.clientId }), {
      done: () => {
        setRows((current) => current.map((item) => (item.clientId === row.clientId ? { ...item, disabledAt: null, disabledBy: null } : item)));
        return `${label(row)} is enabled again.`;
      },
    });
  }

  function remove(row: Row) {
    run(() => deleteClientAction({ clientId: row.clientId }), {
      settled: closeConfirmation,
      done: (revoked) => {
        setRows((current) => current.filter((item) => item.clientId !== row.clientId));
        return `${label(row)} was deleted${revoked ? `; ${revoked} connection${revoked === 1 ? '' : 's'} revoked` : ''}.`;
      },
    });
  }

  function blockEverywhere(app: App, blocked: boolean) {
    if (!app.appId) return;
    const appId = app.appId;
    run(() => blockAppEverywhereAction({ appId, blocked }), {
      settled: () => setBlockingApp(null),
      done: ({ revoked, requestsAnswered }) => {
        setApps((current) => current.map((item) => (item.appId === appId ? { ...item, blockedEverywhere: blocked } : item)));
        return blocked ? `${app.name} is blocked everywhere${endedText(revoked)}${answeredText(requestsAnswered, 'declined')}.` : `${app.name} is no longer blocked everywhere.`;
      },
    });
  }

  if (apps.length === 0) return <EmptyState>{query ? 'No client matches this search.' : 'No client has registered yet.'}</EmptyState>;
  const target = confirming?.row;
  return (
    <>
      <GroupedDataTable label="Clients of the installation" head={HEAD}>
        {apps.map((app) => (
          <AppGroupBody
            key={app.appId ?? app.registrations[0]!.clientId}
            app={app}
            columns={HEAD.length}
            aside={
              app.appId ? (
                <div className="flex flex-wrap items-start justify-between gap-2" data-testid="app-decision">
                  {app.blockedEverywhere ? <Badge tone="bad">Blocked everywhere</Badge> : <span />}
                  {app.blockedEverywhere ? (
                    <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => blockEverywhere(app, false)}>
                      Unblock everywhere<span className="sr-only"> {app.name}</span>
                    </button>
                  ) : (
                    <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setBlockingApp(app)}>
                      Block everywhere<span className="sr-only"> {app.name}</span>
                    </button>
                  )}
                </div>
              ) : null
            }
          >
            {app.registrations.map((row) => (
              <tr key={row.clientId}>
                <ClientIdentityCell
                  name={label(row)}
                  registration={row.registration}
                  clientId={row.clientId}
                  badge={
                    row.disabledAt ? (
                      <span title={`Disabled ${exactTime(row.disabledAt)}${row.disabledBy ? ` by ${row.disabledBy}` : ''}`}>
                        <Badge tone="bad">Disabled</Badge>
                      </span>
                    ) : null
                  }
                />
                <RedirectUrisCell uris={row.redirectUris} hostname={row.hostname} />
                <UsageCells firstSeenAt={row.firstSeenAt} lastUsedAt={row.lastUsedAt} liveGrants={row.liveGrants} />
                <td className="px-3 py-2 align-top">
                  {row.orgs.length ? (
                    <ul className="space-y-0.5">
                      {row.orgs.map((org) => (
                        <li key={org.slug}>
                          {org.name} <span className="text-xs text-slate-500">({org.liveGrants})</span>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="text-slate-500">none</span>
                  )}
                </td>
                <td className="px-3 py-2 align-top">
                  <div className="flex flex-wrap justify-end gap-2">
                    {row.disabledAt ? (
                      <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => enable(row)}>
                        Enable<span className="sr-only"> {label(row)}</span>
                      </button>
                    ) : (
                      <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setConfirming({ kind: 'disable', row })}>
                        Disable<span className="sr-only"> {label(row)}</span>
                      </button>
                    )}
                    <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setConfirming({ kind: 'delete', row })}>
                      Delete<span className="sr-only"> {label(row)}</span>
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </AppGroupBody>
        ))}
      </GroupedDataTable>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming?.kind === 'delete' ? `Delete ${target ? label(target) : ''}?` : `Disable ${target ? label(target) : ''}?`}
        confirmLabel={confirming?.kind === 'delete' ? 'Delete' : 'Disable'}
        pendingLabel={confirming?.kind === 'delete' ? 'Deleting…' : 'Disabling…'}
        pending={pending}
        onConfirm={() => confirming && (confirming.kind === 'delete' ? remove(confirming.row) : disable(confirming.row))}
        onCancel={() => setConfirming(null)}
      >
        {confirming?.kind === 'delete' ? (
          <>
            <p>
              Its {confirming.row.liveGrants} connection{confirming.row.liveGrants === 1 ? '' : 's'} in every organization {confirming.row.liveGrants === 1 ? 'is' : 'are'} revoked and its registration
              is removed. The app has to register again to be used.
            </p>
            {confirming.row.registration === 'metadata_document' ? <p>An app identified by a metadata document comes back the next time someone connects it: disable it to keep it out.</p> : null}
          </>
        ) : confirming ? (
          <p>Nobody can connect {label(confirming.row)} any more, and its tokens are refused at their next use in every organization. Its connections are kept: enabling it again restores them.</p>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={blockingApp !== null}
        title={`Block ${blockingApp?.name ?? ''} everywhere?`}
        confirmLabel="Block everywhere"
        pendingLabel="Blocking…"
        pending={pending}
        onConfirm={() => blockingApp && blockEverywhere(blockingApp, true)}
        onCancel={() => setBlockingApp(null)}
      >
        <p>
          Nobody in any organization will be able to connect {blockingApp?.name} or any app that redirects to the same hosts or schemes ({blockingApp?.evidence}), however many times they register
          again. Their live connections end at once.
        </p>
        {blockingApp?.kind === 'loopback' ? (
          <p className="mt-2">This app redirects only to the computer it runs on, so it is recognised by its name: a copy registered under another name is not covered.</p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
