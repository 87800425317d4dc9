// Links between a log's list and its detail pages that keep the filter and the page: a detail page leads
// back to exactly the list it was opened from. Parameters are re-read through the filter's parser, so
// only valid ones are echoed into a link.
import { filterOrProblem, firstValues, type Cursor, type SearchInput } from '@/lib/audit/log-filter';

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

/** What a log's list page reads from its URL: the fields as typed, the filter (or why it was refused), and its links' parameters. */
export type LogPageState<F> = {
  /** The first value of each parameter, to show in the form as the person typed it. */
  shown: Record<string, string>;
  filter: F | null;
  problem: string | null;
  /** The filter without the page cursor: for exports and for Newer/Older links. */
  query: URLSearchParams;
  /** The filter and the page: for links to a detail page that lead back here. */
  here: URLSearchParams;
};

export function logPageState<F extends Cursor>(input: SearchInput, parse: (input: SearchInput) => F, params: (filter: F) => URLSearchParams): LogPageState<F> {
  const { filter, problem } = filterOrProblem(parse, input);
  return {
    shown: firstValues(input),
    filter,
    problem,
    query: filter ? params(filter) : new URLSearchParams(),
    here: filter ? listParams(filter, params) : new URLSearchParams(),
  };
}
