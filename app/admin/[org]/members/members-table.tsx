'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { ActionResult } from '@/lib/admin/action';
import type { MemberRow } from '@/lib/members/list';
import type { Role } from '@/lib/generated/prisma/enums';
import { Badge, DataTable, EmptyState, selectClass } from '../../components';
import { changeRoleAction, deactivateMemberAction, passwordLinkAction, reactivateMemberAction, removeMemberAction, unlockMemberAction } from './actions';
import { LinkDialog, type LinkFor } from './link-dialog';
import { ROLE_DOES, ROLE_LABELS, ROLES } from './roles';

export type Row = Omit<MemberRow, 'lockedUntil' | 'joinedAt'> & { lockedUntil: string | null; joinedAt: string };
export type You = { personId: string; role: Role };

type Pending = { kind: 'role'; row: Row; role: Role } | { kind: 'deactivate'; row: Row } | { kind: 'remove'; row: Row } | { kind: 'link'; row: Row };

const connections = (count: number) => `${count} connection${count === 1 ? '' : 's'}`;

export function MembersTable({ org, orgName, you, members }: { org: string; orgName: string; you: You; members: Row[] }) {
  const [confirming, setConfirming] = useState<Pending | null>(null);
  const [shownLink, setShownLink] = useState<LinkFor | null>(null);
  const { pending, run } = useConsoleAction();

  /** Every action of this table closes the confirmation it came from, if any; `done` says the toast. */
  function perform<T>(call: () => Promise<ActionResult<T>>, done: (value: T) => string | null) {
    run(call, { settled: () => setConfirming(null), done });
  }

  function confirm() {
    const target = confirming;
    if (!target) return;
    const { row } = target;
    const membershipId = row.membershipId;
    if (target.kind === 'role') {
      perform(
        () => changeRoleAction(org, { membershipId, role: target.role }),
        () => `${row.name} is now ${ROLE_LABELS[target.role].toLowerCase()}.`,
      );
    } else if (target.kind === 'deactivate') {
      perform(
        () => deactivateMemberAction(org, { membershipId }),
        () => `${row.name} was deactivated.`,
      );
    } else if (target.kind === 'remove') {
      perform(
        () => removeMemberAction(org, { membershipId }),
        ({ revoked }) => `${row.name} was removed from ${orgName}; ${connections(revoked)} revoked.`,
      );
    } else {
      perform(
        () => passwordLinkAction(org, { membershipId }),
        (link) => {
          // Shown once, in a dialog, instead of a toast.
          setShownLink({ name: row.name, email: row.email, link });
          return null;
        },
      );
    }
  }

  if (members.length === 0) return <EmptyState>{orgName} has no members yet.</EmptyState>;
  return (
    <>
      <DataTable label={`Members of ${orgName}`} head={['Person', 'Role', 'Status', 'Connections', 'Joined', 'Actions']}>
        {members.map((row) => {
          const isYou = row.personId === you.personId;
          // Only owners manage owners; the server enforces it, the page just does not offer it.
          const manageable = you.role === 'owner' || row.role !== 'owner';
          return (
            <tr key={row.membershipId}>
              <td className="px-3 py-2">
                <span className="font-medium">{row.name}</span>
                {isYou ? <span className="text-slate-500"> (you)</span> : null}
                <span className="block text-xs text-slate-500">{row.email}</span>
              </td>
              <td className="px-3 py-2">
                {manageable ? (
                  <>
                    <label htmlFor={`role-${row.membershipId}`} className="sr-only">
                      Role of {row.name}
                    </label>
                    <select
                      id={`role-${row.membershipId}`}
                      className={selectClass}
                      value={row.role}
                      disabled={pending}
                      onChange={(event) => setConfirming({ kind: 'role', row, role: event.target.value as Role })}
                    >
                      {ROLES.filter((role) => you.role === 'owner' || role !== 'owner').map((role) => (
                        <option key={role} value={role}>
                          {ROLE_LABELS[role]}
                        </option>
                      ))}
                    </select>
                  </>
                ) : (
                  <Badge>{ROLE_LABELS[row.role]}</Badge>
                )}
              </td>
              <td className="space-x-1 px-3 py-2">
                {row.status === 'active' ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Deactivated</Badge>}
                {row.invited ? <Badge tone="warn">Invitation pending</Badge> : null}
                {row.lockedUntil ? (
                  <span title={exactTime(row.lockedUntil)}>
                    <Badge tone="warn">Locked until {new Date(row.lockedUntil).toISOString().slice(11, 16)} UTC</Badge>
                  </span>
                ) : null}
              </td>
              <td className="px-3 py-2">{row.liveGrants}</td>
              <td className="px-3 py-2 whitespace-nowrap" title={exactTime(row.joinedAt)}>
                {relativeTime(row.joinedAt)}
              </td>
              <td className="px-3 py-2">
                {manageable ? (
                  <div className="flex flex-wrap gap-1.5">
                    {row.status === 'active' ? (
                      <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => setConfirming({ kind: 'deactivate', row })}>
                        Deactivate<span className="sr-only"> {row.name}</span>
                      </button>
                    ) : (
                      <button
                        type="button"
                        disabled={pending}
                        className={buttonClass('secondary', 'sm')}
                        onClick={() =>
                          perform(
                            () => reactivateMemberAction(org, { membershipId: row.membershipId }),
                            () => `${row.name} was reactivated.`,
                          )
                        }
                      >
                        Reactivate<span className="sr-only"> {row.name}</span>
                      </button>
                    )}
                    {isYou ? null : (
                      <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => setConfirming({ kind: 'link', row })}>
                        {row.invited ? 'New invitation link' : 'Reset password'}
                        <span className="sr-only"> of {row.name}</span>
                      </button>
                    )}
                    {row.lockedUntil ? (
                      <button
                        type="button"
                        disabled={pending}
                        className={buttonClass('secondary', 'sm')}
                        onClick={() =>
                          perform(
                            () => unlockMemberAction(org, { membershipId: row.membershipId }),
                            () => `${row.name} can sign in again.`,
                          )
                        }
                      >
                        Unlock<span className="sr-only"> {row.name}</span>
                      </button>
                    ) : null}
                    <button type="button" className={buttonClass('danger-outline', 'sm')} onClick={() => setConfirming({ kind: 'remove', row })}>
                      Remove<span className="sr-only"> {row.name}</span>
                    </button>
                  </div>
                ) : (
                  <span className="text-xs text-slate-500">Only owners manage owners.</span>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <ConfirmDialog
        open={confirming !== null}
        title={confirmTitle(confirming)}
        confirmLabel={confirming?.kind === 'remove' ? 'Remove' : confirming?.kind === 'deactivate' ? 'Deactivate' : confirming?.kind === 'link' ? 'Create link' : 'Change role'}
        pendingLabel="Working…"
        pending={pending}
        destructive={confirming?.kind === 'remove' || confirming?.kind === 'deactivate'}
        onConfirm={confirm}
        onCancel={() => setConfirming(null)}
      >
        {confirming ? <ConfirmText pending={confirming} orgName={orgName} isYou={confirming.row.personId === you.personId} /> : null}
      </ConfirmDialog>
      <LinkDialog shown={shownLink} onClose={() => setShownLink(null)} />
    </>
  );
}

function confirmTitle(pending: Pending | null): string {
  if (!pending) return '';
  const { name } = pending.row;
  if (pending.kind === 'role') return `Make ${name} ${ROLE_LABELS[pending.role].toLowerCase()}?`;
  if (pending.kind === 'deactivate') return `Deactivate ${name}?`;
  if (pending.kind === 'remove') return `Remove ${name}?`;
  return pending.row.invited ? `New invitation link for ${name}?` : `Reset the password of ${name}?`;
}

function ConfirmText({ pending, orgName, isYou }: { pending: Pending; orgName: string; isYou: boolean }) {
  const { row } = pending;
  if (pending.kind === 'role') {
    return (
      <p>
        {ROLE_LABELS[pending.role]}s {ROLE_DOES[pending.role]}. The change applies to {isYou ? 'your' : 'their'} apps' very next request.
        {isYou && pending.role !== 'owner' && pending.role !== 'admin' ? ' You will lose access to this console.' : ''}
      </p>
    );
  }
  if (pending.kind === 'deactivate') {
    return (
      <p>
        Their apps&apos; next requests to {orgName} are refused until you reactivate them. Their {connections(row.liveGrants)} in {orgName} {row.liveGrants === 1 ? 'is' : 'are'} kept.
        {isYou ? ' You will lose access to this console.' : ''}
      </p>
    );
  }
  if (pending.kind === 'remove') {
    return (
      <p>
        Their {connections(row.liveGrants)} in {orgName} {row.liveGrants === 1 ? 'is' : 'are'} revoked at once, and they lose access to {orgName}. Their account stays; you can add them again later.
      </p>
    );
  }
  return (
    <p>
      You get a one-time link to pass on{row.invited ? '' : ', valid for 24 hours'}. Earlier links for {row.name} stop working.
      {row.invited ? ' The new invitation is valid for 7 days.' : ' Their current password keeps working until the link is used; using it signs them out of every browser.'}
    </p>
  );
}
