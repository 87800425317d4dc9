'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { InstancePersonRow } from '@/lib/admin/instance-directory';
import { Badge, DataTable, EmptyState } from '../../components';
import { disablePersonAction, enablePersonAction } from './actions';

type Row = Omit<InstancePersonRow, 'disabledAt' | 'lockedUntil' | 'lastSignInAt'> & { disabledAt: string | null; lockedUntil: string | null; lastSignInAt: string | null };

export function PeopleTable({ people, me, query }: { people: Row[]; me: string; query: string }) {
  const [rows, setRows] = useState(people);
  const [disabling, setDisabling] = useState<Row | null>(null);
  const { pending, run } = useConsoleAction();

  function change(row: Row, disable: boolean) {
    run<unknown>(() => (disable ? disablePersonAction({ personId: row.id }) : enablePersonAction({ personId: row.id })), {
      settled: () => setDisabling(null),
      done: () => {
        setRows((current) => current.map((item) => (item.id === row.id ? { ...item, disabledAt: disable ? new Date().toISOString() : null } : item)));
        return disable ? `${row.name} is disabled and signed out everywhere.` : `${row.name} can sign in again.`;
      },
    });
  }

  if (rows.length === 0) return <EmptyState>{query ? 'No one matches this search.' : 'No one has an account yet.'}</EmptyState>;
  return (
    <>
      <DataTable label="People of the installation" head={['Person', 'Organizations', 'Last sign-in', 'Status', '']}>
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="px-3 py-2 align-top">
              <span className="font-medium">{row.name}</span>
              {row.isInstanceAdmin ? (
                <span className="ml-2">
                  <Badge tone="warn">Instance admin</Badge>
                </span>
              ) : null}
              <span className="block text-xs text-slate-500">{row.email}</span>
            </td>
            <td className="px-3 py-2 align-top">
              {row.memberships.length ? (
                <ul className="space-y-0.5">
                  {row.memberships.map((membership) => (
                    <li key={membership.orgSlug}>
                      {membership.orgName} <span className="text-xs text-slate-500">· {membership.role}</span>
                      {membership.status !== 'active' ? <span className="text-xs text-red-800"> · deactivated</span> : null}
                    </li>
                  ))}
                </ul>
              ) : (
                <span className="text-slate-500">none</span>
              )}
            </td>
            <td className="px-3 py-2 align-top whitespace-nowrap" title={row.lastSignInAt ? exactTime(row.lastSignInAt) : undefined}>
              {row.lastSignInAt ? relativeTime(row.lastSignInAt) : 'never'}
            </td>
            <td className="px-3 py-2 align-top">
              <div className="flex flex-wrap gap-1">
                {row.disabledAt ? <Badge tone="bad">Disabled</Badge> : <Badge tone="good">Active</Badge>}
                {row.lockedUntil ? (
                  <span title={`Sign-in refused until ${exactTime(row.lockedUntil)}`}>
                    <Badge tone="warn">Locked</Badge>
                  </span>
                ) : null}
              </div>
            </td>
            <td className="px-3 py-2 text-right align-top">
              {row.id === me ? (
                <span className="text-xs text-slate-500">you</span>
              ) : row.disabledAt ? (
                <button type="button" disabled={pending} className={buttonClass('secondary', 'sm')} onClick={() => change(row, false)}>
                  Enable<span className="sr-only"> {row.name}</span>
                </button>
              ) : (
                <button type="button" disabled={pending} className={buttonClass('danger-outline', 'sm')} onClick={() => setDisabling(row)}>
                  Disable<span className="sr-only"> {row.name}</span>
                </button>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <ConfirmDialog
        open={disabling !== null}
        title={`Disable ${disabling?.name ?? ''}?`}
        confirmLabel="Disable"
        pendingLabel="Disabling…"
        pending={pending}
        onConfirm={() => disabling && change(disabling, true)}
        onCancel={() => setDisabling(null)}
      >
        <p>
          {disabling?.name} is signed out of every browser at once and cannot sign in again; every app they connected is refused at its next request. Enabling the account restores their connections.
        </p>
      </ConfirmDialog>
    </>
  );
}
