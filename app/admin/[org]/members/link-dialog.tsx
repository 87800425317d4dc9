'use client';
// Shows a one-time set-password link to the admin who made it, once: with a copy button and its expiry.
import { useEffect, useId, useRef, useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import type { ShownLink } from '@/lib/members/password-link';
import { inputClass } from '../../components';

export type LinkFor = { name: string; email: string; link: ShownLink };

export function LinkDialog({ shown, onClose }: { shown: LinkFor | null; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const id = useId(); // two of these can be on one page
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (shown && !element.open) {
      setCopied(false);
      element.showModal();
    }
    if (!shown && element.open) element.close();
  }, [shown]);

  async function copy() {
    if (!shown) return;
    try {
      await navigator.clipboard.writeText(shown.link.url);
    } catch {
      // No clipboard access (an insecure origin): select the text so that Ctrl+C copies it.
      field.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  }

  const invite = shown?.link.purpose === 'invite';
  return (
    <dialog ref={dialog} aria-labelledby={`${id}-title`} className="m-auto w-[min(34rem,94vw)] rounded-lg p-6 shadow-xl backdrop:bg-slate-900/40" onClose={onClose}>
      {shown ? (
        <>
          <h2 id={`${id}-title`} className="text-lg font-semibold">
            {invite ? `Invitation link for ${shown.name}` : `Password reset link for ${shown.name}`}
          </h2>
          <div className="mt-2 space-y-3 text-sm text-slate-700">
            <p>
              {shown.link.emailed ? `It was emailed to ${shown.email}. ` : `Send it to ${shown.email} yourself: no email was sent. `}
              It works once, until {exactTime(shown.link.expiresAt)} ({relativeTime(shown.link.expiresAt)}), and is shown only now.
              {invite ? '' : ' Their current password keeps working until the link is used; using it signs them out everywhere.'}
            </p>
            <div className="space-y-1">
              <label htmlFor={`${id}-url`} className="block font-medium text-slate-900">
                One-time link
              </label>
              <div className="flex gap-2">
                <input ref={field} id={`${id}-url`} readOnly value={shown.link.url} onFocus={(event) => event.currentTarget.select()} className={`${inputClass} font-mono`} />
                <button type="button" onClick={copy} className={buttonClass('secondary')}>
                  {copied ? 'Copied' : 'Copy'}
                </button>
              </div>
            </div>
          </div>
          <div className="mt-6 flex justify-end">
            <button type="button" onClick={onClose} className={buttonClass('primary')}>
              Done
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
