// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02): a client_id that is an
// https URL names a JSON document describing the client. oidc-provider fetches it (2.5 s timeout, no
// redirects, 5 KiB, and a dispatcher that refuses private and loopback addresses) and caches it in
// memory; Gatehouse keeps its own client row, made on first use (clients.ts). Experimental in
// oidc-provider: its version is pinned in package.json and `ack` must name the draft it implements.
//
// Tests serve documents from this machine, which the SSRF protection rightly refuses. They lift it for
// loopback origins only, through two variables that must both be set, one of them to a sentence no one
// sets by accident; the server says so loudly at start-up.
import type Provider from 'oidc-provider';
import { errors, type Configuration } from 'oidc-provider';
import { assertNoTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import { isDisabled } from './clients';
import { InvalidRegistration } from './errors';
import { classifyRedirectUri, refuseInvisibleCharacters } from './registration';

export const CIMD_DRAFT = 'draft-02';
const TEST_ALLOWANCE = 'I understand this disables SSRF protection for loopback origins';

type Features = NonNullable<Configuration['features']>;

export function cimdOptions(): Pick<Features, 'clientIdMetadataDocument'> {
  if (!env().cimd) return {};
  return {
    clientIdMetadataDocument: {
      enabled: true,
      ack: CIMD_DRAFT,
      allowClient: async (_ctx: unknown, client: { clientId: string; redirectUris?: string[]; metadata(): Record<string, unknown> } & RemoteReferences) => {
        refuseUnacceptableRedirectUris(client.redirectUris ?? []);
        refuseRemoteReferences(client);
        refuseUnacceptableText(client.metadata());
        // A client an instance admin disabled stays refused, CIMD or not.
        return !(await isDisabled(client.clientId));
      },
    },
  } as Pick<Features, 'clientIdMetadataDocument'>;
}

/**
 * A document's redirect URIs meet the rules a registration's do (registration.ts): a client cannot get
 * by describing itself what it could not get by registering. Checked on every use, cached or not.
 */
function refuseUnacceptableRedirectUris(uris: string[]): void {
  try {
    uris.forEach(classifyRedirectUri);
  } catch (error) {
    if (!(error instanceof InvalidRegistration)) throw error;
    throw new errors.InvalidClientMetadata(`the client's metadata document declares a redirect URI that is not accepted: ${error.description}`);
  }
}

type RemoteReferences = { jwksUri?: string; sectorIdentifierUri?: string; requestUris?: string[] };

/**
 * A document may not send the provider to fetch more URLs, as a registration may not (registration.ts):
 * the keys behind a `jwks_uri` would be fetched when the client authenticates, inside the token
 * endpoint's transaction, where no network read may happen (lib/db/transaction.ts). Keys go inline, as
 * `jwks`.
 */
function refuseRemoteReferences(client: RemoteReferences): void {
  const named = (
    [
      ['jwks_uri', client.jwksUri],
      ['sector_identifier_uri', client.sectorIdentifierUri],
      ['request_uris', client.requestUris?.length ? client.requestUris : undefined],
    ] as const
  ).find(([, value]) => value !== undefined);
  if (!named) return;
  const hint = named[0] === 'jwks_uri' ? ': publish the keys inline as jwks' : '';
  throw new errors.InvalidClientMetadata(`the client's metadata document names ${named[0]}, which is not supported${hint}`);
}

/** A document's text meets the rule a registration's does: no invisible or control characters. */
function refuseUnacceptableText(metadata: Record<string, unknown>): void {
  try {
    refuseInvisibleCharacters(metadata);
  } catch (error) {
    if (!(error instanceof InvalidRegistration)) throw error;
    throw new errors.InvalidClientMetadata(`the client's metadata document is not accepted: ${error.description}`);
  }
}

/**
 * The provider's `fetch` (metadata documents, and any other URL the provider fetches): the standard one,
 * never inside a database transaction (lib/db/transaction.ts), and with the test allowance described above.
 */
export function cimdFetch(): NonNullable<Configuration['fetch']> {
  const origins = testOrigins();
  if (origins) console.warn(`gatehouse: TEST ONLY — metadata documents may be fetched from ${[...origins].join(', ')} without SSRF protection`);
  return ((url: string | URL, options: RequestInit & { dispatcher?: unknown }) => {
    assertNoTransaction(`fetching ${new URL(url).origin}`);
    if (origins?.has(new URL(url).origin)) {
      const { dispatcher: _ssrfProtection, ...rest } = options;
      return fetch(url, rest);
    }
    return fetch(url, options as RequestInit);
  }) as NonNullable<Configuration['fetch']>;
}

/**
 * Fetches a metadata-document client (client_id an https URL) into the provider's cache, so that the
 * transaction that follows finds it there instead of fetching it with a connection held. False when it
 * cannot be had; true for every other client id.
 */
export async function metadataDocumentResolves(provider: Provider, clientId: string | null): Promise<boolean> {
  if (!clientId?.startsWith('https://')) return true;
  try {
    return Boolean(await provider.Client.find(clientId));
  } catch {
    return false;
  }
}

function testOrigins(): Set<string> | null {
  const list = process.env.GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS;
  if (!list) return null;
  if (process.env.GATEHOUSE_TEST_CIMD_ACKNOWLEDGE !== TEST_ALLOWANCE) {
    throw new Error('GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS is a test-only setting and needs its acknowledgement');
  }
  const origins = new Set(list.split(',').map((origin) => new URL(origin.trim()).origin));
  for (const origin of origins) {
    if (!/^https:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin)) {
      throw new Error(`GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS accepts loopback origins only, not ${origin}`);
    }
  }
  return origins;
}

/** Why a metadata document could not be had (resolveMetadataDocument). */
export type DocumentProblem = 'off' | 'invalid_url' | 'unreachable' | 'timeout' | 'private_address' | 'too_large' | 'bad_status' | 'not_json' | 'invalid_document' | 'refused';

export type ResolvedDocument = { ok: true; clientId: string; clientName: string | null } | { ok: false; problem: DocumentProblem; detail: string };

/**
 * Fetches and checks the metadata document at `url` the way a client presenting it as its client_id
 * meets it: the provider's own resolution (its URL rule, its guarded fetch — no redirects, 2.5 s, 5 KiB,
 * no private or loopback address — its checks that the document names `url` as its client_id and holds
 * no secret), then Gatehouse's (allowClient above). Never inside a database transaction: cimdFetch
 * refuses one. What went wrong is a typed value, for the surface to word.
 */
export async function resolveMetadataDocument(provider: Provider, url: string): Promise<ResolvedDocument> {
  if (!env().cimd) return { ok: false, problem: 'off', detail: 'metadata documents are switched off (CIMD=off)' };
  const problem = documentUrlProblem(url);
  if (problem) return { ok: false, problem: 'invalid_url', detail: problem };
  let client: Awaited<ReturnType<Provider['Client']['find']>>;
  try {
    client = await provider.Client.find(url);
  } catch (error) {
    if (!(error instanceof errors.OIDCProviderError)) throw error;
    return { ok: false, ...fetchProblem(error) };
  }
  // The provider's URL rule is the last word: a URL it does not take as a document is not one.
  if (!client) return { ok: false, problem: 'invalid_url', detail: 'it is not a URL a client can be identified by' };
  if (client.clientId !== url) return { ok: false, problem: 'invalid_document', detail: 'the document does not name this URL as its client_id' };
  return { ok: true, clientId: client.clientId, clientName: typeof client.clientName === 'string' ? client.clientName : null };
}

/**
 * What makes `url` no metadata document URL, in words, before anything is fetched; null when it may be
 * one. Each is a case the provider's own rule refuses (draft-ietf-oauth-client-id-metadata-document-02
 * §3: https, no fragment, no user name or password, no dot segments); the provider's rule decides
 * afterwards, these only say why.
 */
function documentUrlProblem(url: string): string | null {
  if (!/^https:\/\//i.test(url)) return URL.canParse(url) ? 'it must start with https://' : 'it is not a URL';
  if ([...url].some((char) => char <= ' ' || char === '\\' || char === '\u007f')) return 'it must not contain spaces, backslashes or control characters';
  if (!URL.canParse(url)) return 'it is not a URL';
  if (url.includes('#')) return 'it must not have a fragment (#…)';
  if (/^https:\/\/[^/?#]*@/i.test(url)) return 'it must not carry a user name or password';
  if (/\/(\.|%2e){1,2}(\/|$|\?)/i.test(url.split('?')[0]!)) return 'it must not contain . or .. path segments';
  return null;
}

/** The provider's refusal of a document, sorted: its cause tells a timeout, a private address or a size. */
function fetchProblem(error: errors.OIDCProviderError): { problem: DocumentProblem; detail: string } {
  const causes: Error[] = [];
  for (let cause: unknown = error.cause; cause instanceof Error && causes.length < 5; cause = cause.cause) causes.push(cause);
  const said = (pattern: RegExp) => causes.some((cause) => pattern.test(cause.message) || pattern.test(cause.name));
  if (said(/TimeoutError|due to timeout/)) return { problem: 'timeout', detail: 'no answer within 2.5 s' };
  if (said(/special-use IP address/)) return { problem: 'private_address', detail: 'its host resolves to a special-use address' };
  // Over the limit with a Content-Length, the provider says so; without one (chunked), the provider's body
  // check (oidc-provider 9.13, pinned) cancels the stream it is still reading, which throws that the
  // stream is locked instead: the same refusal.
  if (said(/response too large|ReadableStream is locked/)) return { problem: 'too_large', detail: 'over 5 KiB' };
  if (causes.some((cause) => cause instanceof SyntaxError)) return { problem: 'not_json', detail: causes.find((cause) => cause instanceof SyntaxError)!.message };
  if (/unexpected response status/.test(error.error_detail ?? ''))
    return { problem: 'bad_status', detail: `the server answered ${error.error_detail!.replace(/^unexpected response status /, 'HTTP ')}` };
  if (error instanceof errors.InvalidClientMetadata) return { problem: 'invalid_document', detail: error.error_description ?? error.message };
  if (error.error_description === 'client is not allowed') return { problem: 'refused', detail: 'the client is disabled' };
  // A network failure: the innermost cause says what (connection refused, host not found, certificate).
  const innermost = causes.at(-1) as (Error & { code?: unknown }) | undefined;
  const code = typeof innermost?.code === 'string' ? ` (${innermost.code})` : '';
  return { problem: 'unreachable', detail: innermost ? `${innermost.message}${code}` : (error.error_description ?? error.message) };
}
