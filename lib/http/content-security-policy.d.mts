/** The fixed policy of responses that are not pages (route handlers). */
export declare const ROUTE_CONTENT_SECURITY_POLICY: string;
/** A fresh nonce for one response: 128 random bits, base64. */
export declare function newNonce(): string;
/** The policy of one page response: its scripts need `nonce`. */
export declare function pageContentSecurityPolicy(nonce: string): string;
