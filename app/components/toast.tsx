'use client';
// Success and error toasts: one live region for the whole app, so screen readers announce each
// message; toasts close by themselves after a few seconds, or with their button.
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

type Toast = { id: number; kind: 'ok' | 'error'; text: string };
type Notify = (kind: Toast['kind'], text: string) => void;

const ToastContext = createContext<Notify>(() => {});

export function useToast(): Notify {
  return useContext(ToastContext);
}

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((current) => current.filter((toast) => toast.id !== id)), []);
  const notify = useCallback<Notify>(
    (kind, text) => {
      const id = nextId++;
      setToasts((current) => [...current.slice(-3), { id, kind, text }]);
      setTimeout(() => dismiss(id), kind === 'ok' ? 5000 : 9000);
    },
    [dismiss],
  );
  return (
    <ToastContext.Provider value={notify}>
      {children}
      <div role="status" aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex flex-col items-center gap-2 px-4 sm:items-end">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            data-toast={toast.kind}
            className={`pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-lg px-4 py-3 text-sm shadow-lg ring-1 ${
              toast.kind === 'ok' ? 'bg-green-50 text-green-900 ring-green-200' : 'bg-red-50 text-red-900 ring-red-200'
            }`}
          >
            <p className="flex-1">{toast.text}</p>
            <button type="button" onClick={() => dismiss(toast.id)} className="rounded px-1 font-medium hover:underline focus-visible:ring-2 focus-visible:ring-brand focus-visible:outline-none">
              Close<span className="sr-only"> message</span>
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
