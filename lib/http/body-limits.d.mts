/** A server action's body: the framework's default `serverActions.bodySizeLimit`, which Gatehouse keeps. */
export declare const ACTION_BODY_LIMIT_BYTES: number;
/** Fields of one multipart server-action body. */
export declare const ACTION_FORM_FIELD_LIMIT: number;
/** How much of a page request's body the framework buffers for the proxy (`proxyClientMaxBodySize`). */
export declare const PROXY_BODY_BUFFER_BYTES: number;
