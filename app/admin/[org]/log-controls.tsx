// Pieces shared by the audit log and call log pages: filter fields, export links, Newer/Older links
// that keep the filter, and the cells and fields of their tables and detail pages.
import type { ReactNode } from 'react';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import type { ClientName, PersonName } from '@/lib/audit/log-names';
import { inputClass, selectClass } from '../components';

const BUTTON = 'inline-flex items-center justify-center rounded px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-offset-1';
export const primaryButton = `${BUTTON} bg-brand text-white hover:opacity-90`;
export const secondaryButton = `${BUTTON} border border-slate-300 bg-white text-slate-900 hover:bg-slate-100`;
export const linkClass = 'text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand';

export function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
    </div>
  );
}

type Option = { value: string; label: string };

/** A menu of choices with "any" first; a value from the URL that is not among them stays selected. */
export function SelectField({ id, name, label, anyLabel, value, options }: { id: string; name: string; label: string; anyLabel: string; value: string; options: Option[] }) {
  const all = value && !options.some((option) => option.value === value) ? [...options, { value, label: value }] : options;
  return (
    <Field id={id} label={label}>
      <select id={id} name={name} defaultValue={value} className={selectClass}>
        <option value="">{anyLabel}</option>
        {all.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function DateFields({ from, to }: { from: string; to: string }) {
  return (
    <>
      <Field id="filter-from" label="From (UTC)">
        <input id="filter-from" name="from" type="date" defaultValue={from} className={inputClass} />
      </Field>
      <Field id="filter-to" label="To (UTC)">
        <input id="filter-to" name="to" type="date" defaultValue={to} className={inputClass} />
      </Field>
    </>
  );
}

export function FilterProblem({ message }: { message: string }) {
  return (
    <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
      {message}
    </p>
  );
}

/** "Export CSV" and "Export JSON Lines" for exactly the filtered rows (every page of them). */
export function ExportLinks({ href, query }: { href: string; query: URLSearchParams }) {
  const link = (format: 'csv' | 'jsonl') => {
    const params = new URLSearchParams(query);
    params.set('format', format);
    return `${href}?${params.toString()}`;
  };
  return (
    <>
      <a href={link('csv')} className={secondaryButton}>
        Export CSV
      </a>
      <a href={link('jsonl')} className={secondaryButton}>
        Export JSON Lines
      </a>
    </>
  );
}

export function Pager({ query, newer, older }: { query: URLSearchParams; newer: string | null; older: string | null }) {
  const link = (cursor: 'after' | 'before', id: string) => {
    const params = new URLSearchParams(query);
    params.set(cursor, id);
    return `?${params.toString()}`;
  };
  if (!newer && !older) return null;
  return (
    <nav aria-label="Pages" className="flex justify-between gap-2">
      {newer ? (
        <a href={link('after', newer)} rel="prev" className={secondaryButton}>
          ← Newer
        </a>
      ) : (
        <span />
      )}
      {older ? (
        <a href={link('before', older)} rel="next" className={secondaryButton}>
          Older →
        </a>
      ) : null}
    </nav>
  );
}

export function When({ at }: { at: Date }) {
  return (
    <time dateTime={at.toISOString()} title={relativeTime(at)} className="whitespace-nowrap">
      {exactTime(at)}
    </time>
  );
}

export function PersonCell({ person }: { person: PersonName | null }) {
  if (!person) return <span className="text-slate-500">—</span>;
  return (
    <>
      {person.name}
      {person.email ? <span className="block text-xs text-slate-500">{person.email}</span> : null}
    </>
  );
}

export function ClientCell({ client }: { client: ClientName | null }) {
  if (!client) return <span className="text-slate-500">—</span>;
  return <span className="break-all">{client.name}</span>;
}

/** A detail page's fields. */
export function DetailList({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid gap-x-6 gap-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-[12rem_1fr]">
      {items.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-sm font-medium text-slate-600">{term}</dt>
          <dd className="min-w-0 break-words">{value ?? <span className="text-slate-500">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}
