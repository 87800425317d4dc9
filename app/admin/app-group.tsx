// An app's heading row in the consoles' client tables: what the registrations listed under it share.
import type { ReactNode } from 'react';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import type { AppGroup, AppKind } from '@/lib/apps/apps';

export type AppGroupView = {
  appId: string | null;
  name: string;
  kind: AppKind | null;
  evidence: string;
  firstSeenAt: string | null;
  lastSeenAt: string | null;
  registrationCount: number;
};

/** An app group as a client component receives it: dates as ISO strings, each row through `row`. */
export function appGroupView<Row, ViewRow>(app: AppGroup<Row>, row: (registration: Row) => ViewRow): AppGroupView & { registrations: ViewRow[] } {
  return {
    appId: app.appId,
    name: app.name,
    kind: app.kind,
    evidence: app.evidence,
    firstSeenAt: app.firstSeenAt?.toISOString() ?? null,
    lastSeenAt: app.lastSeenAt?.toISOString() ?? null,
    registrationCount: app.registrationCount,
    registrations: app.registrations.map(row),
  };
}

/**
 * One app: its heading row (a row-group header, so each registration row below is read under it), then its
 * registrations. `aside` (the decision on the app and its buttons) takes the heading row's last two columns.
 */
export function AppGroupBody({ app, columns, aside, children }: { app: AppGroupView; columns: number; aside?: ReactNode; children: ReactNode }) {
  return (
    <tbody className="divide-y divide-slate-200 border-t-2 border-slate-300">
      <tr className="bg-slate-50">
        <th scope="rowgroup" colSpan={aside ? columns - 2 : columns} className="px-3 py-2 text-left font-normal">
          <span className="font-semibold">{app.name}</span>
          <span className="ml-2 text-xs text-slate-600">
            {app.registrationCount} registration{app.registrationCount === 1 ? '' : 's'}
          </span>
          <span className="block text-xs text-slate-600">
            App grouped by: {app.evidence}
            {app.firstSeenAt ? (
              <>
                {' · first seen '}
                <span title={exactTime(app.firstSeenAt)}>{relativeTime(app.firstSeenAt)}</span>
              </>
            ) : null}
            {app.lastSeenAt ? (
              <>
                {' · last seen '}
                <span title={exactTime(app.lastSeenAt)}>{relativeTime(app.lastSeenAt)}</span>
              </>
            ) : null}
          </span>
        </th>
        {aside ? (
          <td colSpan={2} className="px-3 py-2 align-top">
            {aside}
          </td>
        ) : null}
      </tr>
      {children}
    </tbody>
  );
}

/** "; 2 connections ended": what a block did to the app's connections, for its toast. */
export function endedText(count: number): string {
  return count ? `; ${count} connection${count === 1 ? '' : 's'} ended` : '';
}

/** "; 2 pending requests declined": what a decision on an app did to the requests for it, for its toast. */
export function answeredText(count: number, how: 'approved' | 'declined'): string {
  return count ? `; ${count} pending request${count === 1 ? '' : 's'} ${how}` : '';
}
