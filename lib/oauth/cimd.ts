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
