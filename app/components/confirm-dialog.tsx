'use client';
// A confirmation for destructive actions, on the native <dialog>: focus moves into it, Escape cancels,
// and focus returns to the button that opened it.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  pendingLabel = 'Working…',
  pending = false,
  destructive = true,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  pending?: boolean;
  destructive?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} aria-labelledby={titleId} className="m-auto w-[min(28rem,92vw)] rounded-lg p-6 shadow-xl backdrop:bg-slate-900/40" onClose={onCancel}>
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      <div className="mt-2 space-y-2 text-sm text-slate-700">{children}</div>
      <div className="mt-6 flex justify-end gap-3">
        <button type="button" onClick={onCancel} className={buttonClass('secondary')}>
          Cancel
        </button>
        <button type="button" onClick={onConfirm} disabled={pending} className={buttonClass(destructive ? 'danger' : 'primary')}>
          {pending ? pendingLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export type ButtonKind = 'primary' | 'secondary' | 'danger' | 'danger-outline';

const BUTTON: Record<ButtonKind, string> = {
  primary: 'bg-brand text-white hover:opacity-90',
  secondary: 'border border-slate-300 bg-white text-slate-900 hover:bg-slate-100',
  danger: 'bg-red-700 text-white hover:bg-red-800',
  'danger-outline': 'border border-red-300 bg-white text-red-800 hover:bg-red-50',
};

/** The button styles used across the app, with a visible keyboard focus ring. */
export function buttonClass(kind: ButtonKind, size: 'sm' | 'md' = 'md'): string {
  const padding = size === 'sm' ? 'px-2.5 py-1 text-xs' : 'px-3 py-1.5 text-sm';
  return `inline-flex items-center justify-center rounded font-medium ${padding} ${BUTTON[kind]} focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-offset-1 disabled:opacity-60`;
}
