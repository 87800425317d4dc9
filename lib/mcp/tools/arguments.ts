// Argument types tools share, bounded to what the database can use: a value the schema accepts must never
// fail later as a database error (a tool_error, and a stack trace in the log, for the caller's mistake).
// Text the database cannot store at all (NUL, broken Unicode) is refused for every tool in gates.ts.
import { z } from 'zod';

/** PostgreSQL's bigint: the row ids that page cursors carry. */
const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * A row id from a previous page (`nextCursor`): digits, within bigint. One check, not a regex and then a
 * refinement: zod runs a string's refinements even after its regex failed, and `BigInt()` of a value that
 * is not digits throws (a 500 for the caller's typo).
 */
export const pageCursor = () => z.string().refine((value) => /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT, 'must be the nextCursor of a previous page');

/**
 * An instant in ISO 8601 (RFC 3339) with its offset, from year 1 on: ISO's year 0000 (1 BC) and earlier
 * are not years PostgreSQL takes, and a four-digit year keeps it below 10000.
 */
export const instant = () => z.iso.datetime({ offset: true }).refine((value) => new Date(value).getUTCFullYear() >= 1, 'must be a time from the year 0001 on');
