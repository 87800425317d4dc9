// Why a connector's upstream could not be used: one typed error for the catalog reads, the forwarded calls
// and the token requests, turned into words for the admin or the caller where it surfaces.
/**
 * Why an upstream could not be read, in words for the admin or the caller (never its credential):
 * - unreachable: no connection, a refused or reset one, a TLS error, an HTTP error status;
 * - timeout: no answer within the connector's timeout;
 * - too_large: an answer past the byte limit, counted while it streamed in;
 * - malformed: an answer that is not MCP (not JSON-RPC, a result of the wrong shape, nested too deep);
 * - refused: the upstream turned Gatehouse's credential down (HTTP 401 or 403);
 * - jsonrpc: the upstream answered the request with a JSON-RPC error;
 * - session_gone: HTTP 404 for the session (the upstream restarted); the request was not taken.
 */
export type UpstreamErrorKind = 'unreachable' | 'timeout' | 'too_large' | 'malformed' | 'refused' | 'jsonrpc' | 'session_gone';

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: UpstreamErrorKind,
    /** The upstream's HTTP status, when it answered one (a 401 tells a refused access token: upstream-auth.ts). */
    readonly status?: number,
  ) {
    super(message);
  }
}
