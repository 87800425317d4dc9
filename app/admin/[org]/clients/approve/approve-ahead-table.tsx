'use client';

import { useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { AppKind } from '@/lib/apps/apps';
import { answeredText } from '../../../app-group';
import { Badge, DataTable, EmptyState } from '../../../components';
import { decideAppAction } from '../actions';

export type AheadApp = {
  appId: string;
  name: string;
  kind: AppKind;
  evidence: string;
  registrationCount: number;
  lastSeenAt: string;
  decision: 'approved' | 'blocked' | null;
  /** The app whose block covers this one (they share a redirect host or scheme), if any. */
  blockedThrough: string | null;
  blockedEverywhere: boolean;
};

const HEAD = ['App', 'Grouped by', 'Registrations on this Gatehouse', 'Last seen', 'Decision'];
const KIND: Record<AppKind, string> = { redirects: 'Self-registered', loopback: 'Self-registered, loopback only', metadata_document: 'Metadata document', admin: 'Registered by an admin' };

/** The installation's apps with this org's standing on each: Approve, or the decision and Clear. */
export function ApproveAheadTable({ org, query, apps: initial }: { org: string; query: string; apps: AheadApp[] }) {
  const [apps, setApps] = useState(initial);
  const { pending, run } = useConsoleAction();

  function decide(app: AheadApp, decision: 'approved' | 'none') {
    run(() => decideAppAction(org, { appId: app.appId, decision }), {
      done: ({ requestsAnswered }) => {
        setApps((current) => current.map((item) => (item.appId === app.appId ? { ...item, decision: decision === 'none' ? null : decision } : item)));
        return decision === 'approved' ? `${app.name} is approved${answeredText(requestsAnswered, 'approved')}.` : `${app.name} is no longer approved or blocked.`;
      },
    });
  }

  if (apps.length === 0) return <EmptyState>{query ? `No app matches “${query}”.` : 'No self-registered or metadata-document app has been seen on this Gatehouse yet.'}</EmptyState>;
  return (
    <DataTable label="Apps seen on this Gatehouse" head={HEAD}>
      {apps.map((app) => (
        <tr key={app.appId} data-testid="ahead-app">
          <th scope="row" className="px-3 py-2 text-left align-top font-normal">
            <span className="font-semibold">{app.name}</span>
            <span className="block text-xs text-slate-600">{KIND[app.kind]}</span>
          </th>
          <td className="px-3 py-2 align-top text-xs text-slate-600">{app.evidence}</td>
          <td className="px-3 py-2 align-top">{app.registrationCount}</td>
          <td className="px-3 py-2 align-top whitespace-nowrap">
            <span title={exactTime(app.lastSeenAt)}>{relativeTime(app.lastSeenAt)}</span>
          </td>
          <td className="px-3 py-2 align-top">
            <div className="flex flex-wrap items-center gap-2">
              {app.decision === 'approved' ? <Badge tone="good">Approved</Badge> : app.decision === 'blocked' ? <Badge tone="bad">Blocked</Badge> : null}
              {app.blockedThrough && app.decision !== 'blocked' ? <Badge tone="bad">Blocked through {app.blockedThrough}</Badge> : null}
              {app.blockedEverywhere ? <Badge tone="bad">Blocked on this Gatehouse</Badge> : null}
              {app.decision ? (
                <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(app, 'none')}>
                  Clear<span className="sr-only"> the decision on {app.name}</span>
                </button>
              ) : (
                <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => decide(app, 'approved')}>
                  Approve<span className="sr-only"> {app.name}</span>
                </button>
              )}
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
