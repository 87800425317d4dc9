// A database outage, as the provider should answer it: 503 temporarily_unavailable (RFC 6749 §4.1.2.1
// defines the code for the authorization endpoint; Gatehouse uses it on every endpoint), not the 500
// server_error the provider would render for an unknown error. Thrown from the storage the provider calls
// (adapter.ts, findAccount), it reaches the provider's error handlers as an exposed error of its own kind.
import { errors } from 'oidc-provider';
import { isDatabaseUnavailable } from '@/lib/db/errors';

export const UNAVAILABLE_DESCRIPTION = 'The authorization server cannot reach its database right now. Try again shortly.';

/** Runs `work`; a database outage comes out as the provider's temporarily_unavailable with status 503. */
export async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    const unavailable = new errors.TemporarilyUnavailable(UNAVAILABLE_DESCRIPTION, { cause: error });
    Object.assign(unavailable, { status: 503, statusCode: 503, expose: true });
    throw unavailable;
  }
}
