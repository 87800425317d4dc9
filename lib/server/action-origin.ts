// Cross-site server actions (CSRF). The framework compares a server-action call's Origin with the host the
// request was sent to (X-Forwarded-Host, else Host) and refuses a mismatch, but it answers with a 500, as
// if Gatehouse had failed, and a malformed Origin fails inside it. The proxy makes the same comparison
// first and answers 403: a refusal. The framework's own check stays behind it.

/** Whether a POST to a page is a server-action call: a `Next-Action` header, or a multipart form. */
export function isServerActionRequest(headers: Headers): boolean {
  return headers.has('next-action') || (headers.get('content-type') ?? '').startsWith('multipart/form-data');
}

/**
 * Whether the call comes from another site: an Origin (RFC 6454 §7) that is "null", malformed, or names
 * another host than the one the request was sent to. A call without Origin is let through, as the
 * framework does: browsers send Origin on every cross-site POST (Fetch standard, "append a request
 * `Origin` header"), so only a hand-made request lacks it, and that carries no one's cookies by accident.
 */
export function isCrossSiteAction(headers: Headers): boolean {
  const origin = headers.get('origin');
  if (origin === null) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true; // "null" (an opaque origin) included
  }
  const forwardedHost = headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  const host = forwardedHost || headers.get('host');
  return !host || originHost !== host;
}

export const CROSS_SITE_ACTION_REFUSAL = {
  error: 'forbidden',
  error_description: 'Cross-site request refused: this action can only be sent from a page of Gatehouse, not from another site.',
} as const;
