'use client';

import { type ReactNode, useRef, useState, useTransition } from 'react';
import type { GrantRow } from '@/lib/grants/list';
import { relativeTime } from '@/app/components/relative-time';
import { revokeConnectedApp } from './actions';

/** A connected app as it crosses to the browser: dates as ISO strings, scopes as the consent page words them. */
export type AppRow = Pick<GrantRow, 'grantId' | 'clientName' | 'unverified' | 'hostname' | 'orgName'> & {
  scopes: string[];
  approvedAt: string;
  lastUsedAt: string | null;
};

/** `empty`: shown under the empty list (how to connect an app), also once the last app is revoked. */
export function ConnectedAppsList({ apps: initial, empty }: { apps: AppRow[]; empty?: ReactNode }) {
  const [apps, setApps] = useState(initial);
  const [confirming, setConfirming] = useState<AppRow | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const dialog = useRef<HTMLDialogElement>(null);

  function askToRevoke(app: AppRow) {
    setConfirming(app);
    setMessage(null);
    dialog.current?.showModal();
  }

  function revoke() {
    const app = confirming;
    if (!app) return;
    startTransition(async () => {
      const outcome = await revokeConnectedApp(app.grantId);
      dialog.current?.close();
      setConfirming(null);
      if (outcome.ok) {
        setApps((current) => current.filter((row) => row.grantId !== app.grantId));
        setMessage({ kind: 'ok', text: `${app.clientName} was disconnected from ${app.orgName}.` });
      } else {
        setMessage({ kind: 'error', text: outcome.error });
      }
    });
  }

  return (
    <>
      <p role="status" aria-live="polite" className={message ? `rounded px-3 py-2 text-sm ${message.kind === 'ok' ? 'bg-green-50 text-green-900' : 'bg-red-50 text-red-800'}` : 'sr-only'}>
        {message?.text ?? ''}
      </p>
      {apps.length === 0 ? (
        <>
          <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">No apps are connected to your account.</p>
          {empty}
        </>
      ) : (
        <ul className="space-y-3" aria-label="Connected apps">
          {apps.map((app) => (
            <li key={app.grantId} className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:flex-row sm:items-center sm:justify-between">
              <div className="space-y-1">
                <p className="font-medium">
                  {app.clientName}
                  {app.unverified ? <span className="ml-2 rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900">Unverified</span> : null}
                </p>
                <p className="text-sm text-slate-600">
                  {app.hostname ? `${app.hostname} · ` : ''}in <strong>{app.orgName}</strong>
                </p>
                <p className="text-sm text-slate-600">Can: {app.scopes.join('; ')}</p>
                <p className="text-xs text-slate-500">
                  Approved {relativeTime(app.approvedAt)} · {app.lastUsedAt ? `last used ${relativeTime(app.lastUsedAt)}` : 'not used yet'}
                </p>
              </div>
              <button
                type="button"
                onClick={() => askToRevoke(app)}
                className="self-start rounded border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-800 hover:bg-red-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-500 sm:self-center"
              >
                Revoke
                <span className="sr-only">
                  {' '}
                  {app.clientName} in {app.orgName}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <dialog ref={dialog} aria-labelledby="revoke-title" className="m-auto w-[min(28rem,90vw)] rounded-lg p-6 shadow-xl backdrop:bg-slate-900/40" onClose={() => setConfirming(null)}>
        <h2 id="revoke-title" className="text-lg font-semibold">
          Revoke {confirming?.clientName}?
        </h2>
        <p className="mt-2 text-sm text-slate-700">
          {confirming?.clientName} will lose access to {confirming?.orgName} immediately. To use it again, you will have to connect it again.
        </p>
        <div className="mt-6 flex justify-end gap-3">
          <button type="button" onClick={() => dialog.current?.close()} className="rounded border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-100">
            Cancel
          </button>
          <button type="button" onClick={revoke} disabled={pending} className="rounded bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-60">
            {pending ? 'Revoking…' : 'Revoke access'}
          </button>
        </div>
      </dialog>
    </>
  );
}
