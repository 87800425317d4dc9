/** Shown while a console page loads its data. */
export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-3">
      <span className="sr-only">Loading…</span>
      <div className="h-6 w-48 animate-pulse rounded bg-slate-200" />
      <div className="h-24 animate-pulse rounded-lg bg-slate-200" />
      <div className="h-24 animate-pulse rounded-lg bg-slate-200" />
    </div>
  );
}
