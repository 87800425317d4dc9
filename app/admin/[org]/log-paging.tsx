// Moving through a filtered log: Newer/Older links and the export links, each keeping the filter.
import { secondaryButton } from '../components';

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
