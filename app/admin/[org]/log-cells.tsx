// The cells of the log tables and the fields of their detail pages: a time, a person, an app.
import type { ReactNode } from 'react';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import type { ClientName, PersonName } from '@/lib/audit/log-names';
import { linkClass } from '../components';

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

/** A detail page's fields, each a `<Detail>`. */
export function DetailList({ children }: { children: ReactNode }) {
  return <dl className="grid gap-x-6 gap-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-[12rem_1fr]">{children}</dl>;
}

/** One field of a detail page: its name, and its value or a dash when there is none. */
export function Detail({ term, children }: { term: string; children?: ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="min-w-0 break-words">{children ?? <span className="text-slate-500">—</span>}</dd>
    </div>
  );
}

/** A person on a detail page: name and email on one line. */
export function personLine(person: PersonName | null, none: string | null = null): string | null {
  if (!person) return none;
  return person.email ? `${person.name} (${person.email})` : person.name;
}

/** An app on a detail page: its name and client id, or the id alone when it has no other name. */
export function AppLine({ client }: { client: ClientName | null }) {
  if (!client) return null;
  return <span className="break-all">{client.name === client.id ? client.id : `${client.name} (${client.id})`}</span>;
}

/** The last cell of a log row: the link to its detail page, which keeps the list's filter and page. */
export function DetailsCell({ base, id, what, here }: { base: string; id: bigint; what: string; here: URLSearchParams }) {
  return (
    <td className="px-3 py-2 text-right">
      <a href={`${base}/${id}${here.size ? `?${here}` : ''}`} className={linkClass}>
        Details<span className="sr-only">{` of ${what} ${id}`}</span>
      </a>
    </td>
  );
}
