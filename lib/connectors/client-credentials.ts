// OAuth client credentials for a connector's upstream (docs/connectors.md, Client credentials): the
// configuration an instance admin gives — the authorization server's token endpoint, Gatehouse's client id
// and secret there, a scope and a resource indicator — checked, and stored with the secret sealed exactly as
// header credentials are (credentials.ts). Getting the token is upstream-auth.ts's.
import { seal, unseal } from '@/lib/crypto/seal';
import { ConnectorError, printable } from './errors';

/** How Gatehouse authenticates at the token endpoint (RFC 6749 §2.3.1): HTTP Basic (the default) or in the form body. */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** What an admin gives (the command line, the console). `clientAuth` also takes the short `basic` or `post`. */
export type ClientCredentialsInput = {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  resource?: string;
  clientAuth?: ClientAuthMethod | 'basic' | 'post';
};

/** The configuration as it is stored and used: the secret sealed, opened only for a token request. */
export type SealedClientCredentials = {
  tokenUrl: string;
  clientId: string;
  clientSecretSealed: string;
  clientAuth: ClientAuthMethod;
  scope: string | null;
  resource: string | null;
};

/** What may be shown of it: everything but the secret. */
export type ClientCredentialsSummary = Omit<SealedClientCredentials, 'clientSecretSealed'>;

const MAX_URL = 2048;
const MAX_CLIENT_ID = 255;
const MAX_SECRET = 1024;
const MAX_SCOPE = 1024;
// RFC 6749 Appendix A.1 and A.2: client ids and secrets are VSCHAR, %x20-7E.
const VSCHAR = /^[\x20-\x7e]+$/;
// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), tokens separated by single spaces.
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
const VISIBLE = /^[\x21-\x7e]+$/;

/** The configuration checked, trimmed and with its defaults, or a ConnectorError that never quotes the secret. */
export function checkClientCredentials(input: ClientCredentialsInput): Omit<SealedClientCredentials, 'clientSecretSealed'> & { clientSecret: string } {
  const tokenUrl = input.tokenUrl.trim();
  const urlProblem = tokenUrlProblem(tokenUrl);
  if (urlProblem) throw new ConnectorError(urlProblem);
  const clientId = input.clientId.trim();
  if (!clientId || clientId.length > MAX_CLIENT_ID || !VSCHAR.test(clientId)) {
    throw new ConnectorError(`The client id must be 1 to ${MAX_CLIENT_ID} printable ASCII characters.`);
  }
  // The secret is taken as given but for a line end (stdin, an environment file): never trimmed further, never echoed.
  const clientSecret = input.clientSecret.replace(/\r?\n$/, '');
  if (!clientSecret || clientSecret.length > MAX_SECRET || !VSCHAR.test(clientSecret)) {
    throw new ConnectorError(`The client secret must be 1 to ${MAX_SECRET} printable ASCII characters (it is not shown here).`);
  }
  const scope = input.scope?.trim() || null;
  if (scope !== null && (scope.length > MAX_SCOPE || !SCOPE.test(scope))) {
    throw new ConnectorError(`The scope must be scope tokens separated by single spaces (RFC 6749 §3.3), at most ${MAX_SCOPE} characters, without " or \\.`);
  }
  const resource = input.resource?.trim() || null;
  if (resource !== null) {
    const problem = resourceProblem(resource);
    if (problem) throw new ConnectorError(problem);
  }
  return { tokenUrl, clientId, clientSecret, clientAuth: clientAuthMethod(input.clientAuth), scope, resource };
}

function tokenUrlProblem(url: string): string | null {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !VISIBLE.test(url)) return 'The token URL must be an absolute http:// or https:// URL.';
  if (parsed.username || parsed.password) return 'The token URL must not carry a user name or password: give the client id and secret on their own.';
  if (parsed.hash || url.includes('#')) return 'The token URL must not have a #fragment.';
  if (url.length > MAX_URL) return `The token URL is longer than ${MAX_URL} characters.`;
  return null;
}

// RFC 8707 §2: the resource is an absolute URI without a fragment.
function resourceProblem(resource: string): string | null {
  const parsed = URL.parse(resource);
  if (!parsed || !VISIBLE.test(resource) || resource.length > MAX_URL) return `The resource must be an absolute URI (RFC 8707 §2) of at most ${MAX_URL} characters.`;
  if (parsed.hash || resource.includes('#')) return 'The resource must not have a #fragment (RFC 8707 §2).';
  return null;
}

function clientAuthMethod(value: ClientCredentialsInput['clientAuth']): ClientAuthMethod {
  if (value === undefined || value === 'basic' || value === 'client_secret_basic') return 'client_secret_basic';
  if (value === 'post' || value === 'client_secret_post') return 'client_secret_post';
  throw new ConnectorError(`The client authentication must be "basic" (client_secret_basic) or "post" (client_secret_post), not "${printable(String(value).slice(0, 40))}".`);
}

/** The checked configuration with its secret sealed under `key` (credentials.ts derives it). */
export function sealClientCredentials(checked: ReturnType<typeof checkClientCredentials>, key: Buffer): SealedClientCredentials {
  const { clientSecret, ...rest } = checked;
  return { ...rest, clientSecretSealed: seal(key, clientSecret) };
}

export function openClientSecret(sealed: SealedClientCredentials, key: Buffer): string {
  return unseal(key, sealed.clientSecretSealed);
}

/** The connector's columns for it (all null: no client credentials). */
export function clientCredentialsColumns(sealed: SealedClientCredentials | null) {
  return {
    tokenUrl: sealed?.tokenUrl ?? null,
    tokenClientId: sealed?.clientId ?? null,
    tokenClientSecretSealed: sealed?.clientSecretSealed ?? null,
    tokenClientAuth: sealed?.clientAuth ?? null,
    tokenScope: sealed?.scope ?? null,
    tokenResource: sealed?.resource ?? null,
  };
}

type Columns = { [column in keyof ReturnType<typeof clientCredentialsColumns>]: string | null };

/** The configuration from a connector's columns, or null when it has none. */
export function clientCredentialsOf(row: Columns): SealedClientCredentials | null {
  if (!row.tokenUrl || !row.tokenClientId || !row.tokenClientSecretSealed) return null;
  return {
    tokenUrl: row.tokenUrl,
    clientId: row.tokenClientId,
    clientSecretSealed: row.tokenClientSecretSealed,
    clientAuth: row.tokenClientAuth === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic',
    scope: row.tokenScope,
    resource: row.tokenResource,
  };
}

/** Everything but the secret, for lists, audit events and the console. */
export function clientCredentialsSummary(sealed: SealedClientCredentials): ClientCredentialsSummary {
  const { clientSecretSealed: _secret, ...shown } = sealed;
  return shown;
}
