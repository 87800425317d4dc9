// Building blocks shared by the console's pages: headings, tables, badges, empty states, inputs, buttons and links.
import type { ReactNode } from 'react';

export function PageHeading({ title, children, actions }: { title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
      <div>
        <h1 className="text-2xl font-semibold">{title}</h1>
        {children ? <p className="mt-1 text-slate-600">{children}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 gap-2">{actions}</div> : null}
    </div>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">{children}</p>;
}

/** A table that scrolls sideways on narrow screens rather than squeezing its columns. */
export function DataTable({ label, head, children }: { label: string; head: string[]; children: ReactNode }) {
  return (
    <GroupedDataTable label={label} head={head}>
      <tbody className="divide-y divide-slate-200">{children}</tbody>
    </GroupedDataTable>
  );
}

/**
 * A DataTable whose rows come in groups, each its own <tbody> led by an AppGroupHeading: the console
 * lists registrations under the app they belong to.
 */
export function GroupedDataTable({ label, head, children }: { label: string; head: string[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="bg-slate-100 text-slate-700">
          <tr>
            {head.map((column, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed for its page, and some have no heading text to key on
              <th key={index} scope="col" className="px-3 py-2 font-medium whitespace-nowrap">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        {children}
      </table>
    </div>
  );
}

const BADGE = {
  neutral: 'bg-slate-100 text-slate-800',
  good: 'bg-green-100 text-green-900',
  warn: 'bg-amber-100 text-amber-900',
  bad: 'bg-red-100 text-red-800',
} as const;

export function Badge({ tone = 'neutral', children }: { tone?: keyof typeof BADGE; children: ReactNode }) {
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium whitespace-nowrap ${BADGE[tone]}`}>{children}</span>;
}

export const selectClass = 'rounded border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-brand';
export const inputClass = 'w-full rounded border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-brand';

const BUTTON = 'inline-flex items-center justify-center rounded px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-offset-1';
export const primaryButton = `${BUTTON} bg-brand text-white hover:opacity-90`;
export const secondaryButton = `${BUTTON} border border-slate-300 bg-white text-slate-900 hover:bg-slate-100`;
export const linkClass = 'text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand';
