// The credential Gatehouse presents to a connector's upstream, of one of two kinds: headers an instance
// admin gives (an API key, a bearer token), or OAuth client credentials with which Gatehouse gets an access
// token itself (client-credentials.ts, upstream-auth.ts). What is secret — the header lines, the client
// secret — is sealed with a key derived from AUTH_SECRET before it is stored and opened only for a call.
// Never logged, printed, shown in the console or returned by a command.
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import { inTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import { type ClientCredentialsInput, checkClientCredentials, openClientSecret, type SealedClientCredentials, sealClientCredentials } from './client-credentials';
import { ConnectorError } from './errors';
import type { UpstreamTarget } from './upstream';

/** A connector's credential as an admin gives it: header lines, or client credentials; never both. */
export type CredentialInput = { headers?: string[]; clientCredentials?: ClientCredentialsInput };

/** A credential checked and sealed, as the connector's columns hold it. */
export type SealedCredential = { credentialSealed: string | null; clientCredentials: SealedClientCredentials | null };

const CREDENTIAL_PURPOSE = 'connector-credentials';

// Headers Gatehouse sets itself, or that would change what the request is: never taken from an admin.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'cookie',
  // Set by Gatehouse on each call: an admin's header must not stand in for it.
  'gatehouse-identity',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** `Name: value` lines (as given to --header) as headers, or the reason they cannot be used. */
export function parseCredentialHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    // Not quoted: a line without its name may be a bare secret (a token pasted alone).
    if (!HEADER_NAME.test(name)) throw new ConnectorError(`Credential line ${index + 1} is not a header: write it as "Name: value".`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new ConnectorError(`The ${name} header is set by Gatehouse itself and cannot be given.`);
    // RFC 9110 §5.5: field values are visible ASCII, spaces and tabs; no CR, LF or NUL to split a request with.
    if (!value || !/^[\t\x20-\x7e]{1,4096}$/.test(value)) throw new ConnectorError(`The value of the ${name} header must be 1 to 4096 printable ASCII characters.`);
    if (Object.keys(headers).some((known) => known.toLowerCase() === name.toLowerCase())) throw new ConnectorError(`The ${name} header is given twice.`);
    headers[name] = value;
  }
  return headers;
}

function credentialKey(secret = env().authSecret): Buffer {
  return deriveKey(secret, CREDENTIAL_PURPOSE);
}

/**
 * The credential checked and sealed, with what the audit event may say of it (header names, never values;
 * the client credentials but their secret). Both kinds at once are refused.
 */
export function sealCredential(input: CredentialInput): SealedCredential & { headerNames: string[] } {
  if (input.headers?.length && input.clientCredentials) {
    throw new ConnectorError("A connector's credential is either header lines or client credentials, not both: give one of them.");
  }
  if (input.clientCredentials) {
    return { credentialSealed: null, clientCredentials: sealClientCredentials(checkClientCredentials(input.clientCredentials), credentialKey()), headerNames: [] };
  }
  const headers = parseCredentialHeaders(input.headers ?? []);
  return { credentialSealed: sealHeaders(headers), clientCredentials: null, headerNames: Object.keys(headers) };
}

/** Where and with what credential to reach a connector's upstream: its headers opened, or its token source. */
export function upstreamTarget(connector: { slug: string; url: string; timeoutMs: number } & SealedCredential): UpstreamTarget {
  const { clientCredentials } = connector;
  return {
    url: connector.url,
    headers: openHeaders(connector.credentialSealed),
    timeoutMs: connector.timeoutMs,
    ...(clientCredentials ? { token: { slug: connector.slug, credentials: clientCredentials, timeoutMs: connector.timeoutMs } } : {}),
  };
}

/** The client secret, opened for a token request only (upstream-auth.ts). */
export function openSealedClientSecret(sealed: SealedClientCredentials): string {
  return openClientSecret(sealed, credentialKey());
}

/** A new client secret for the same client credentials, sealed. */
export function resealClientSecret(sealed: SealedClientCredentials, clientSecret: string): SealedClientCredentials {
  const { clientSecretSealed: _old, ...rest } = sealed;
  return sealClientCredentials(checkClientCredentials({ ...rest, scope: rest.scope ?? undefined, resource: rest.resource ?? undefined, clientSecret }), credentialKey());
}

export function sealHeaders(headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? seal(credentialKey(), JSON.stringify(headers)) : null;
}

/** The upstream credential of a connector, opened for a call. Never logged, printed or returned by a command. */
export function openHeaders(sealed: string | null): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(unseal(credentialKey(), sealed)) as Record<string, string>;
}

/**
 * Re-seals every connector's secrets (header lines, client secrets) under a new AUTH_SECRET; joins the
 * caller's transaction (secret:rotate).
 */
export async function resealConnectorCredentials(currentSecret: string, newSecret: string): Promise<number> {
  return inTransaction(async (tx) => {
    const rows = await tx.connector.findMany({
      where: { OR: [{ credentialSealed: { not: null } }, { tokenClientSecretSealed: { not: null } }] },
      select: { id: true, slug: true, credentialSealed: true, tokenClientSecretSealed: true },
    });
    const reseal = (slug: string, sealed: string | null) => {
      if (sealed === null) return null;
      let plaintext: string;
      try {
        plaintext = unseal(credentialKey(currentSecret), sealed);
      } catch {
        throw new Error(`The credential of connector ${slug} cannot be decrypted with the current AUTH_SECRET: nothing was changed.`);
      }
      return seal(credentialKey(newSecret), plaintext);
    };
    for (const row of rows) {
      await tx.connector.update({
        where: { id: row.id },
        data: { credentialSealed: reseal(row.slug, row.credentialSealed), tokenClientSecretSealed: reseal(row.slug, row.tokenClientSecretSealed) },
      });
    }
    return rows.length;
  });
}
