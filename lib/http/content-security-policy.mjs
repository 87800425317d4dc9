// Gatehouse's Content-Security-Policy, in one place for the two that send it (plain JavaScript so that
// next.config.mjs can import it; types in the .d.mts beside it).
//
// Pages (set by proxy.ts): scripts run only when they carry that response's nonce, or are loaded by one
// that does ('strict-dynamic'), so markup injected into a page cannot run a script even if React's
// escaping were ever bypassed. Next.js puts the nonce on its own script tags — the inline ones that stream
// page data included — when it finds it in the request's Content-Security-Policy header.
//
// Everything else (route handlers, from next.config.mjs): a fixed policy that allows inline scripts,
// because the provider's own form_post answer submits itself with one; those responses show no
// client-chosen markup.
//
// Both: scripts and styles only from Gatehouse itself, styles inline too (charts set them; a style cannot
// run code); images also over https; nothing may frame a page, load a plugin, or rebase relative URLs.
// No form-action: the consent form's answer is a redirect to the client's own redirect URI, which
// form-action would block.
import { randomBytes } from 'node:crypto';

/** @param {string} scriptSources */
function policy(scriptSources) {
  return [
    "default-src 'self'",
    `script-src ${scriptSources}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const ROUTE_CONTENT_SECURITY_POLICY = policy("'self' 'unsafe-inline'");

/** A fresh nonce for one response: 128 random bits. */
export function newNonce() {
  return randomBytes(16).toString('base64');
}

/** @param {string} nonce */
export function pageContentSecurityPolicy(nonce) {
  return policy(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
}
