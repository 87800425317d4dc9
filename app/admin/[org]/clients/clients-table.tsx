'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { OrgClientRow } from '@/lib/admin/org-clients';
import type { OrgAppStanding } from '@/lib/apps/decisions';
import { AppGroupBody, type AppGroupView, answeredText, endedText } from '../../app-group';
import { ClientIdentityCell, RedirectUrisCell, UsageCells } from '../../client-cells';
import { Badge, EmptyState, GroupedDataTable } from '../../components';
import { decideAppAction } from './actions';

type Row = Omit<OrgClientRow, 'firstSeenAt' | 'lastUsedAt'> & { firstSeenAt: string; lastUsedAt: string | null };
type Decision = 'approved' | 'blocked' | 'none';
type Block = Omit<NonNullable<OrgAppStanding['block']>, 'decidedAt'>;
export type StandingView = { decision: 'approved' | 'blocked' | null; block: Block | null; blockedEverywhere: Block | null };
type App = AppGroupView & { registrations: Row[]; standing: StandingView | null; matchedByNameOnly: boolean; alsoCovers: string[] };

const HEAD = ['App', 'Redirect URIs', 'First seen', 'Last used', 'Connections', 'Decision', ''];

/** What a block through another app says: which app, and what this one shares with it. */
function via(block: Block): string {
  return `${block.appName} (shares ${block.shared.map((mark) => mark.replace(/^host:/, '').replace(/^scheme:(.*)$/, '$1:')).join(', ')})`;
}

/** The decision on the app, and the blocks that cover it from elsewhere. */
function StandingBadges({ app }: { app: App }) {
  const standing = app.standing;
  if (!standing) return <Badge>Being grouped</Badge>;
  const inherited = standing.block && standing.block.shared.length > 0 ? standing.block : null;
  return (
    <div className="flex flex-col items-start gap-1">
      {standing.decision === 'approved' ? <Badge tone="good">Approved</Badge> : standing.decision === 'blocked' ? <Badge tone="bad">Blocked</Badge> : inherited ? null : <Badge>No decision</Badge>}
      {inherited ? <Badge tone="bad">Blocked through {via(inherited)}</Badge> : null}
      {standing.blockedEverywhere ? <Badge tone="bad">Blocked on this Gatehouse{standing.blockedEverywhere.shared.length ? ` through ${via(standing.blockedEverywhere)}` : ''}</Badge> : null}
    </div>
  );
}

/** The org's apps, each with the registrations its users made listed under it. Decisions are made on apps. */
export function ClientsTable({ org, apps: initial }: { org: string; apps: App[] }) {
  const [apps, setApps] = useState(initial);
  const [blocking, setBlocking] = useState<App | null>(null);
  const { pending, run } = useConsoleAction();

  function decide(app: App, decision: Decision) {
    if (!app.appId) return;
    const appId = app.appId;
    // Then the page is read again (the default): a block also covers other apps sharing a redirect.
    run(() => decideAppAction(org, { appId, decision }), {
      settled: () => setBlocking(null),
      done: ({ revoked, requestsAnswered }) => {
        setApps((current) =>
          current.map((item) =>
            item.appId === appId && item.standing
              ? {
                  ...item,
                  standing: { ...item.standing, decision: decision === 'none' ? null : decision },
                  registrations: decision === 'blocked' ? item.registrations.map((row) => ({ ...row, liveGrants: 0 })) : item.registrations,
                }
              : item,
          ),
        );
        if (decision === 'approved') return `${app.name} is approved${answeredText(requestsAnswered, 'approved')}.`;
        if (decision === 'blocked') return `${app.name} is blocked${endedText(revoked)}${answeredText(requestsAnswered, 'declined')}.`;
        return `${app.name} is no longer approved or blocked.`;
      },
    });
  }

  function actions(app: App) {
    const decision = app.standing?.decision ?? null;
    if (!app.appId || !app.standing) return null;
    return (
      <div className="flex flex-wrap justify-end gap-2">
        {decision !== 'approved' ? (
          <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(app, 'approved')}>
            Approve<span className="sr-only"> {app.name}</span>
          </button>
        ) : null}
        {decision !== 'blocked' ? (
          <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setBlocking(app)}>
            Block<span className="sr-only"> {app.name}</span>
          </button>
        ) : null}
        {decision ? (
          <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(app, 'none')}>
            Clear<span className="sr-only"> the decision on {app.name}</span>
          </button>
        ) : null}
      </div>
    );
  }

  if (apps.length === 0) return <EmptyState>No app has been connected in this organization yet.</EmptyState>;
  const liveOf = (app: App) => app.registrations.reduce((sum, row) => sum + row.liveGrants, 0);
  return (
    <>
      <GroupedDataTable label="Apps and their registrations seen in the organization" head={HEAD}>
        {apps.map((app) => (
          <AppGroupBody
            key={app.appId ?? app.registrations[0]!.clientId}
            app={app}
            columns={HEAD.length}
            aside={
              <div className="flex flex-wrap items-start justify-between gap-2" data-testid="app-decision">
                <StandingBadges app={app} />
                {actions(app)}
              </div>
            }
          >
            {app.registrations.length === 0 ? (
              <tr>
                <td colSpan={HEAD.length} className="px-3 py-2 text-sm text-slate-600">
                  Nobody in this organization has registered this app yet.
                </td>
              </tr>
            ) : null}
            {app.registrations.map((row) => (
              <tr key={row.clientId}>
                <ClientIdentityCell name={row.name} registration={row.registration} clientId={row.clientId} badge={row.disabled ? <Badge tone="bad">Disabled instance-wide</Badge> : null} />
                <RedirectUrisCell uris={row.redirectUris} hostname={row.hostname} />
                <UsageCells firstSeenAt={row.firstSeenAt} lastUsedAt={row.lastUsedAt} liveGrants={row.liveGrants} />
                <td className="px-3 py-2 align-top text-xs text-slate-600">As its app</td>
                <td />
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
          Nobody in this organization will be able to connect {blocking?.name}, however many times it registers again
          {blocking && liveOf(blocking) ? `, and its ${liveOf(blocking)} live connection${liveOf(blocking) === 1 ? '' : 's'} end at once` : ''}.
        </p>
        {blocking?.matchedByNameOnly ? (
          <p className="mt-2">
            This app redirects only to this computer (loopback), so it is recognised by its name alone: a copy that registers under another name is another app, which this block does not cover.
          </p>
        ) : (
          <p className="mt-2">The block also covers every other app that redirects to the same hosts or private-use schemes ({blocking?.evidence}).</p>
        )}
        {blocking?.alsoCovers.length ? <p className="mt-2">Apps seen on this Gatehouse that it covers now: {blocking.alsoCovers.join(', ')}.</p> : null}
      </ConfirmDialog>
    </>
  );
}
