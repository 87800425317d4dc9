// The console's one error type: what went wrong, in words for the person, and the HTTP status a route
// handler answers with. Server actions turn it into { ok: false, error }; pages into a redirect or 404.
// The refusals of connector changes (lib/connectors/errors.ts), already in words for the admin, count as
// invalid requests here; an upstream MCP server (or its authorization server) that could not be read or
// refused Gatehouse is `upstream` (a bad gateway, 502), in the words UpstreamError already has — its text
// comes from a server Gatehouse does not control, so it is shown as text, never as markup.
import { ConnectorError } from '@/lib/connectors/errors';
import { UpstreamError } from '@/lib/connectors/upstream-errors';

export type ConsoleErrorKind = 'signed_out' | 'forbidden' | 'not_found' | 'invalid' | 'conflict' | 'upstream';

const STATUS: Record<ConsoleErrorKind, number> = { signed_out: 401, forbidden: 403, not_found: 404, invalid: 400, conflict: 409, upstream: 502 };

export class ConsoleError extends Error {
  constructor(
    readonly kind: ConsoleErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleError';
  }

  get status(): number {
    return STATUS[this.kind];
  }
}

export const signedOut = () => new ConsoleError('signed_out', 'Your session has ended: sign in again.');
/** One answer whether the org does not exist or the person may not act in it: ids reveal nothing. */
export const forbidden = (what = 'You do not have permission to do this here.') => new ConsoleError('forbidden', what);
export const notFound = (what: string) => new ConsoleError('not_found', what);
export const invalid = (what: string) => new ConsoleError('invalid', what);
export const conflict = (what: string) => new ConsoleError('conflict', what);

/** The console's error for `error`, when it is a refusal in words for the person; null for a failure. */
export function asConsoleError(error: unknown): ConsoleError | null {
  if (error instanceof ConsoleError) return error;
  if (error instanceof ConnectorError) return invalid(error.message);
  if (error instanceof UpstreamError) return new ConsoleError('upstream', `Nothing was changed: ${error.message}.`);
  return null;
}

/** The JSON answer of a console route handler. */
export function consoleErrorResponse(error: unknown): Response {
  const refusal = asConsoleError(error);
  if (refusal) return Response.json({ error: refusal.kind, message: refusal.message }, { status: refusal.status });
  console.error('console route failed', error);
  return Response.json({ error: 'server_error', message: 'Something went wrong. Please try again.' }, { status: 500 });
}
