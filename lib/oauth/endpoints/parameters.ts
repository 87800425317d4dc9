// RFC 6749 Appendix A: OAuth parameters are printable text. One holding NUL names nothing Gatehouse
// stores, and PostgreSQL refuses it in a query (a 500 if it got that far): it is refused up front.
import { isStorableText } from '@/lib/db/storable-text';
import { InvalidRequest } from '../errors';

/** Throws a 400 `invalid_request` naming the first parameter that cannot be OAuth text. */
export function refuseUnstorableParameters(params: URLSearchParams): void {
  for (const [name, value] of params) {
    if (!isStorableText(name) || !isStorableText(value)) {
      throw new InvalidRequest(`the ${isStorableText(name) ? `${name} ` : ''}parameter holds a character an OAuth parameter may not contain`);
    }
  }
}

/** A client id from a URL path segment (RFC 7592), or null when it cannot be one. */
export function clientIdFromPath(segment: string): string | null {
  try {
    const clientId = decodeURIComponent(segment);
    return isStorableText(clientId) ? clientId : null;
  } catch {
    return null; // malformed percent-encoding
  }
}
