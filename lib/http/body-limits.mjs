// The request-body limits that the framework's own configuration needs too (next.config.mjs), beside the
// code that enforces them (proxy.ts, lib/http/body.ts). Plain JavaScript so that next.config.mjs can
// import it.

/** A server action's body: the framework's default `serverActions.bodySizeLimit`, which Gatehouse keeps. */
export const ACTION_BODY_LIMIT_BYTES = 1024 * 1024;

/** Fields of one multipart server-action body: the framework allows at most 1,000 arguments too. */
export const ACTION_FORM_FIELD_LIMIT = 1000;

/**
 * How much of a page request's body the framework buffers for the proxy (`proxyClientMaxBodySize`,
 * 10 MB by default). Past it the framework silently cuts the body at a chunk boundary, for the proxy and
 * for the page alike, and drains the rest unread. One socket read (64 KiB) past the action limit lets the
 * proxy see that a body went past that limit even without a Content-Length (chunked uploads).
 */
export const PROXY_BODY_BUFFER_BYTES = ACTION_BODY_LIMIT_BYTES + 64 * 1024;
