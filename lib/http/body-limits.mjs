// The request-body limits that the framework's own configuration needs too (next.config.mjs), beside the
// code that enforces them (proxy.ts, lib/http/body.ts). Plain JavaScript so that next.config.mjs can
// import it.

/**
 * A server action's body: 1,000,000 bytes, below the framework's default `serverActions.bodySizeLimit`
 * (1 MiB). React's reply decoder refuses a payload whose arrays and the strings in them add up to more
 * than 1,000,000 slots ("Maximum array nesting exceeded"), which the framework answers with a 500; a body
 * of at most 1,000,000 bytes cannot reach that count, since every slot costs at least one byte.
 */
export const ACTION_BODY_LIMIT_BYTES = 1_000_000;

/** Fields of one multipart server-action body: the framework allows at most 1,000 arguments too. */
export const ACTION_FORM_FIELD_LIMIT = 1000;

/**
 * How much of a page request's body the framework buffers for the proxy (`proxyClientMaxBodySize`,
 * 10 MB by default). Past it the framework silently cuts the body at a chunk boundary, for the proxy and
 * for the page alike, and drains the rest unread. One socket read (64 KiB) past the action limit lets the
 * proxy see that a body went past that limit even without a Content-Length (chunked uploads).
 */
export const PROXY_BODY_BUFFER_BYTES = ACTION_BODY_LIMIT_BYTES + 64 * 1024;
