// The search box and page links of the instance console's long lists (clients, people). Plain GET
// links and forms: the lists are rendered on the server and a URL names each page.
import Link from 'next/link';
import { inputClass } from '../components';

export function SearchForm({ label, placeholder, query }: { label: string; placeholder: string; query: string }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for the browsers the console supports; role="search" says the same
    <form method="get" role="search" className="flex max-w-xl items-end gap-2">
      <div className="flex flex-1 flex-col gap-1">
        <label htmlFor="search" className="text-sm font-medium">
          {label}
        </label>
        <input id="search" name="q" type="search" defaultValue={query} placeholder={placeholder} className={inputClass} />
      </div>
      <button type="submit" className="rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
        Search
      </button>
    </form>
  );
}

type PaginationProps = { base: string; query: string; page: number; pages: number; total: number; noun: [singular: string, plural: string] };

export function Pagination({ base, query, page, pages, total, noun }: PaginationProps) {
  const href = (target: number) => {
    const params = new URLSearchParams();
    if (query) params.set('q', query);
    if (target > 1) params.set('page', String(target));
    const search = params.toString();
    return search ? `${base}?${search}` : base;
  };
  const link = 'rounded px-3 py-1.5 text-sm font-medium text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand';
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
      <p>
        {total} {total === 1 ? noun[0] : noun[1]}
        {query ? ` matching “${query}”` : ''} · page {page} of {pages}
      </p>
      <div className="flex gap-2">
        {page > 1 ? (
          <Link href={href(page - 1)} className={link}>
            ← Previous
          </Link>
        ) : null}
        {page < pages ? (
          <Link href={href(page + 1)} className={link}>
            Next →
          </Link>
        ) : null}
      </div>
    </nav>
  );
}
