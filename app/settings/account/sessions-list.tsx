'use client';

import { useState, useTransition } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { useToast } from '@/app/components/toast';
import { endSessionsAction } from './actions';

export type SessionRow = { id: string; ip: string | null; device: string; createdAt: string; lastSeenAt: string };

export function SessionsList({ current, sessions: initial }: { current: string; sessions: SessionRow[] }) {
  const [sessions, setSessions] = useState(initial);
  const [confirmingAll, setConfirmingAll] = useState(false);
  const [pending, startTransition] = useTransition();
  const notify = useToast();
  const others = sessions.filter((session) => session.id !== current);

  function end(sessionId: string | null) {
    startTransition(async () => {
      const outcome = await endSessionsAction(sessionId);
      setConfirmingAll(false);
      if (!outcome.ok) return notify('error', outcome.error);
      setSessions((rows) => rows.filter((row) => (sessionId ? row.id !== sessionId : row.id === current)));
      notify('ok', outcome.ended === 1 ? 'Signed out of 1 other session.' : `Signed out of ${outcome.ended} other sessions.`);
    });
  }

  return (
    <div className="space-y-3">
      <ul className="space-y-2" aria-label="Sign-in sessions">
        {sessions.map((session) => (
          <li key={session.id} className="flex flex-col gap-2 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:flex-row sm:items-center sm:justify-between">
            <div>
              <p className="font-medium">
                {session.device}
                {session.id === current ? <span className="ml-2 rounded bg-green-100 px-2 py-0.5 text-xs font-medium text-green-900">This browser</span> : null}
              </p>
              <p className="text-sm text-slate-600">
                {session.ip ?? 'unknown address'} · signed in <span title={exactTime(session.createdAt)}>{relativeTime(session.createdAt)}</span> · active {relativeTime(session.lastSeenAt)}
              </p>
            </div>
            {session.id === current ? null : (
              <button type="button" className={buttonClass('danger-outline', 'sm')} disabled={pending} onClick={() => end(session.id)}>
                Sign out
                <span className="sr-only">
                  {' '}
                  {session.device} signed in {relativeTime(session.createdAt)}
                </span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {others.length > 0 ? (
        <button type="button" className={buttonClass('danger-outline')} onClick={() => setConfirmingAll(true)}>
          Sign out of all other sessions
        </button>
      ) : (
        <p className="text-sm text-slate-600">You are not signed in anywhere else.</p>
      )}
      <ConfirmDialog
        open={confirmingAll}
        title="Sign out everywhere else?"
        confirmLabel="Sign out others"
        pendingLabel="Signing out…"
        pending={pending}
        onConfirm={() => end(null)}
        onCancel={() => setConfirmingAll(false)}
      >
        <p>
          {others.length} other session{others.length === 1 ? '' : 's'} will end. Apps you connected keep working: revoke them on the Connected apps page.
        </p>
      </ConfirmDialog>
    </div>
  );
}
