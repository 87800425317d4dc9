// What the audit log and the call log filters share: reading URL search parameters, a bounded date range
// (whole UTC days), and keyset pagination on the row id, newest first. Keyset rather than offset: a
// page deep in a large table costs the same as the first one.
import { z } from 'zod';
import { ConsoleError, invalid } from '@/lib/admin/errors';

export const PAGE_SIZE = 50;
/** The longest time range a filter may ask for. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

/** Search parameters as Next hands them to a page, or as a route handler reads them from the URL. */
export type SearchInput = URLSearchParams | Record<string, string | string[] | undefined>;

/** The first value of each parameter (a repeated one counts once), as a plain object. */
export function firstValues(input: SearchInput): Record<string, string> {
  // A Map, not an object: parameter names are untrusted, and `__proto__` must be a name like any other.
  const values = new Map<string, string>();
  const entries = input instanceof URLSearchParams ? [...input.entries()] : Object.entries(input);
  for (const [name, value] of entries) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && !values.has(name)) values.set(name, first);
  }
  return Object.fromEntries(values); // own data properties, whatever the names
}

/** An optional text parameter: empty means absent. */
export const optionalText = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${label} is too long (at most ${max} characters).`)
    .optional()
    .transform((value) => value || undefined);

const day = (label: string) => optionalText(label, 10).refine((value) => value === undefined || parseDay(value) !== null, `${label} must be a date written YYYY-MM-DD.`);

const rowId = optionalText('The page cursor', 18).refine((value) => value === undefined || /^\d+$/.test(value), 'The page cursor is not valid.');

/** Fields every log filter has: person, client, date range and the page cursor. */
export const commonFilterFields = {
  person: optionalText('The person', 100),
  client: optionalText('The app', 2048),
  from: day('"From"'),
  to: day('"To"'),
  before: rowId,
  after: rowId,
};

/** Parses with `schema`, throwing the first problem as a ConsoleError (400 in a route, a message on a page). */
export function parseFilter<S extends z.ZodType>(schema: S, input: SearchInput): z.infer<S> {
  const parsed = schema.safeParse(firstValues(input));
  if (!parsed.success) throw invalid(parsed.error.issues[0]?.message ?? 'The filter is not valid.');
  return parsed.data;
}

/** Midnight UTC of a YYYY-MM-DD day, or null when it is no real date (2026-02-30). */
export function parseDay(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date;
}

export type TimeRange = { gte?: Date; lt?: Date };

/** The filter's days as a half-open range of instants: from the start of "from" to the end of "to". */
export function timeRange(from: string | undefined, to: string | undefined): TimeRange | undefined {
  const start = from ? parseDay(from) : null;
  const end = to ? new Date(parseDay(to)!.getTime() + DAY_MS) : null;
  if (start && end) {
    if (start >= end) throw invalid('"From" must be on or before "To".');
    if (end.getTime() - start.getTime() > MAX_RANGE_DAYS * DAY_MS) throw invalid(`Choose at most ${MAX_RANGE_DAYS} days between "From" and "To".`);
  }
  if (!start && !end) return undefined;
  return { ...(start ? { gte: start } : {}), ...(end ? { lt: end } : {}) };
}

export type Cursor = { before?: string; after?: string };
export type IdRange = { lt?: bigint; gt?: bigint };
export type Page<T> = {
  rows: T[];
  /** Cursor of the newer page (`after=`), null on the newest one. */
  newer: string | null;
  /** Cursor of the older page (`before=`), null on the oldest one. */
  older: string | null;
};

/**
 * One page of `size` rows (PAGE_SIZE on a console page), newest first. `read` runs the filtered query
 * restricted to an id range, in the given order; it is also asked for one row on the other side to know
 * whether there is a page. The console pages and the read_audit_log tool page with it alike.
 */
export async function pageByKeyset<T extends { id: bigint }>(cursor: Cursor, read: (ids: IdRange, order: 'asc' | 'desc', take: number) => Promise<T[]>, size = PAGE_SIZE): Promise<Page<T>> {
  if (cursor.after) {
    const fetched = await read({ gt: BigInt(cursor.after) }, 'asc', size + 1);
    const rows = fetched.slice(0, size).reverse();
    const hasOlder = rows.length > 0 && (await read({ lt: rows.at(-1)!.id }, 'desc', 1)).length > 0;
    return page(rows, fetched.length > size, hasOlder);
  }
  const fetched = await read(cursor.before ? { lt: BigInt(cursor.before) } : {}, 'desc', size + 1);
  const rows = fetched.slice(0, size);
  const hasNewer = Boolean(cursor.before) && rows.length > 0 && (await read({ gt: rows[0]!.id }, 'asc', 1)).length > 0;
  return page(rows, hasNewer, fetched.length > size);
}

function page<T extends { id: bigint }>(rows: T[], hasNewer: boolean, hasOlder: boolean): Page<T> {
  return { rows, newer: hasNewer ? rows[0]!.id.toString() : null, older: hasOlder ? rows.at(-1)!.id.toString() : null };
}

/** Walks every row matching the filter, newest first, EXPORT_BATCH at a time: memory stays flat. */
export async function* batchesByKeyset<T extends { id: bigint }>(read: (ids: IdRange, take: number) => Promise<T[]>): AsyncGenerator<T[]> {
  let before: bigint | undefined;
  for (;;) {
    const rows = await read(before === undefined ? {} : { lt: before }, EXPORT_BATCH);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_BATCH) return;
    before = rows.at(-1)!.id;
  }
}

export const EXPORT_BATCH = 500;

/** A row id from the URL (a detail page), or null when it cannot be one. */
export function parseRowId(value: string): bigint | null {
  return /^\d{1,18}$/.test(value) ? BigInt(value) : null;
}

/** A filter from a page's search params, or the reason it is not valid (shown above the table). */
export function filterOrProblem<F>(parse: (input: SearchInput) => F, input: SearchInput): { filter: F | null; problem: string | null } {
  try {
    return { filter: parse(input), problem: null };
  } catch (error) {
    if (error instanceof ConsoleError) return { filter: null, problem: error.message };
    throw error;
  }
}
