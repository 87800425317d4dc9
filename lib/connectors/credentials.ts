// The credential Gatehouse presents to a connector's upstream: headers an instance admin gives (an API key,
// a bearer token), sealed with a key derived from AUTH_SECRET before they are stored and opened only for a
// call. Never logged, printed, shown in the console or returned by a command.
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import { inTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import { ConnectorError, printable } from './errors';

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
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (!HEADER_NAME.test(name)) throw new ConnectorError(`"${printable(line.slice(0, 40))}" is not a header: write it as "Name: value".`);
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

export function sealHeaders(headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? seal(credentialKey(), JSON.stringify(headers)) : null;
}

/** The upstream credential of a connector, opened for a call. Never logged, printed or returned by a command. */
export function openHeaders(sealed: string | null): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(unseal(credentialKey(), sealed)) as Record<string, string>;
}

/** Re-seals every connector credential under a new AUTH_SECRET; joins the caller's transaction (secret:rotate). */
export async function resealConnectorCredentials(currentSecret: string, newSecret: string): Promise<number> {
  return inTransaction(async (tx) => {
    const rows = await tx.connector.findMany({ where: { credentialSealed: { not: null } }, select: { id: true, slug: true, credentialSealed: true } });
    for (const row of rows) {
      let plaintext: string;
      try {
        plaintext = unseal(credentialKey(currentSecret), row.credentialSealed!);
      } catch {
        throw new Error(`The credential of connector ${row.slug} cannot be decrypted with the current AUTH_SECRET: nothing was changed.`);
      }
      await tx.connector.update({ where: { id: row.id }, data: { credentialSealed: seal(credentialKey(newSecret), plaintext) } });
    }
    return rows.length;
  });
}
