// Links between a log's list and its detail pages that keep the filter and the page: a detail page leads
// back to exactly the list it was opened from. Parameters are re-read through the filter's parser, so
// only valid ones are echoed into a link.
import type { Cursor, SearchInput } from '@/lib/audit/log-filter';

/** The filter and the page cursor as search parameters. */
export function listParams<F extends Cursor>(filter: F, params: (filter: F) => URLSearchParams): URLSearchParams {
  const query = params(filter);
  if (filter.before) query.set('before', filter.before);
  if (filter.after) query.set('after', filter.after);
  return query;
}

/** `?…` for the list a detail page was opened from, or '' when its parameters are not a valid filter. */
export function backQuery<F extends Cursor>(input: SearchInput, parse: (input: SearchInput) => F, params: (filter: F) => URLSearchParams): string {
  try {
    const query = listParams(parse(input), params);
    return query.size ? `?${query}` : '';
  } catch {
    return '';
  }
}
