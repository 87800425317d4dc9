// The one oidc-provider instance of this process, configured for Gatehouse (docs/protocol.md §2–§4). Each option that
// departs from the provider's defaults says why. Route handlers reach the provider through
// handle-request.ts; it is a process singleton (lib/server/process-singleton.ts) because Next.js may evaluate this module once per route
// bundle, and two providers would disagree about in-memory state (CIMD cache, keys).
//
// Keys are read when the provider is built. To take a rotation without a restart, every instance checks
// the stored keys every KEY_RELOAD_SECONDS and, when they changed, builds a new provider and hands new
// requests to it; requests already running finish on the old one. That is safe because the provider
// keeps nothing of its own in memory that matters: grants, tokens, sessions and interactions are in the
// database, and the new provider still verifies what the retired keys signed.
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { env } from '@/lib/env';
import { db, outsideTransaction } from '@/lib/db/client';
import { processSingleton } from '@/lib/server/process-singleton';
import { PrismaAdapter } from './adapter';
import { clientSecretMatches } from './client-secrets';
import { cimdFetch, cimdOptions } from './cimd';
import type { JsonWebKey } from 'node:crypto';
import { loadProviderKeys, storedKeysVersion } from './keys';
import { isMcpResource, mcpResource } from './resource';
import { ALL_SCOPES, MCP_SCOPES } from './scopes';
import { orUnavailable } from './unavailable';

/** Every provider endpoint lives under /oauth (docs/protocol.md §2); nothing points outside it. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/oauth/jwks',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** Leeway for nbf and iat of what the provider verifies (its default, stated so the /mcp lookup uses it too). */
export const CLOCK_TOLERANCE_SECONDS = 15;

export const LIFETIMES = {
  Interaction: 30 * 60,
  AuthorizationCode: 60,
  AccessToken: 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
  // A provider session only remembers who signed in here; Gatehouse's own sign-in decides.
  Session: 12 * 60 * 60,
  // A grant lives as long as it is used: each refresh extends its refresh token, so the grant itself
  // must outlive any chain of refreshes. Revocation, not expiry, ends it.
  Grant: 10 * 365 * 24 * 60 * 60,
} as const;

const MCP_SCOPE_LIST = Object.keys(MCP_SCOPES).join(' ');

/** Every authorization goes through the consent screen: no silent reuse of an earlier grant (docs/protocol.md §5). */
function consentEveryTime() {
  const { Prompt, Check, base } = interactionPolicy;
  const policy = base();
  const index = policy.findIndex((prompt) => prompt.name === 'consent');
  policy.splice(
    index,
    1,
    new Prompt(
      { name: 'consent', requestable: true },
      new Check('consent_required', 'the person must approve this client', 'consent_required', (ctx) => (ctx.oidc.result?.consent ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT)),
    ),
  );
  return policy;
}

/** A provider with the keys it was built with (its signing keys, active ones first, also sign Gatehouse's own JWTs). */
type Built = { provider: Provider; keysVersion: string; signingKeys: JsonWebKey[] };

async function createProvider(): Promise<Built> {
  const { publicUrl } = env();
  const keys = await loadProviderKeys();
  const secureCookies = publicUrl.startsWith('https://');
  const configuration: Configuration = {
    adapter: PrismaAdapter,
    jwks: { keys: keys.signing as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: keys.cookies,
      long: { signed: true, secure: secureCookies, sameSite: 'lax' },
      short: { signed: true, secure: secureCookies, sameSite: 'lax' },
    },
    routes: OAUTH_ROUTES,
    responseTypes: ['code'],
    // PKCE for every client, confidential ones included; oidc-provider 9 accepts only S256 and refuses a
    // challenge without its method.
    pkce: { required: () => true },
    scopes: ALL_SCOPES,
    claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'RS256',
    },
    // No client_secret_jwt: it would use the client secret — stored only as a hash — as an HMAC key.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    enabledJWA: { clientAuthSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'] },
    ttl: LIFETIMES,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    // Tokens belong to the grant, not to the browser session that approved it.
    expiresWithSession: () => false,
    // Refresh tokens for every client allowed the grant, whether or not it asked for offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every refresh rotates (docs/protocol.md §4), confidential clients included.
    rotateRefreshToken: () => true,
    // Revoking either token of a grant (RFC 7009) ends the whole grant: the app is disconnected.
    revokeGrantPolicy: () => true,
    // CORS `*` on the token, revocation and introspection endpoints: browser-based MCP clients call them,
    // and they are protected by PKCE and client authentication, not by origin.
    clientBasedCORS: () => true,
    interactions: {
      url: (_ctx, interaction) => `/consent/${interaction.uid}`,
      policy: consentEveryTime(),
    },
    // Only the grant the person just approved; never one found in the provider session (docs/protocol.md §5).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: true },
      registrationManagement: { enabled: true, rotateRegistrationAccessToken: false },
      revocation: { enabled: true },
      // RFC 7662 for confidential clients only (a public client has nothing to authenticate with), and
      // only about their own tokens (§4): any other token is answered with just `active: false` (§2.2),
      // so that no client learns whose token it holds, for whom, with which scopes.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => client.clientAuthMethod !== 'none' && token.clientId === client.clientId,
      },
      // No userinfo endpoint: every access token is for /mcp alone (RFC 8707 resource indicators, below),
      // and the provider answers userinfo only for tokens without an audience — it could never succeed.
      // Who signed in reaches an OpenID client in the ID token instead.
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // /mcp takes Bearer tokens only (lib/mcp/caller.ts): a DPoP-bound token would work nowhere, so DPoP
      // is neither advertised nor honoured; a proof sent anyway is ignored and a Bearer token issued
      // (RFC 9449 §5), and `dpop_bound_access_tokens` is not registrable.
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpResource(),
        useGrantedResource: () => true,
        // Gatehouse rewrites every accepted spelling to the canonical one before the provider runs
        // (resource.ts), so anything but that one is refused here.
        getResourceServerInfo: (_ctx, resource) => {
          if (!isMcpResource(resource)) {
            throw new errors.InvalidTarget(`the only resource is ${mcpResource()}`);
          }
          return {
            scope: MCP_SCOPE_LIST,
            audience: mcpResource(),
            accessTokenFormat: 'opaque',
            accessTokenTTL: LIFETIMES.AccessToken,
          };
        },
      },
      ...cimdOptions(),
    },
    fetch: cimdFetch(),
    async findAccount(_ctx, sub) {
      // The token endpoint runs inside a transaction (see endpoints/token.ts): db() joins it.
      const person = await orUnavailable(() => db().person.findUnique({ where: { id: sub } }));
      if (!person || person.disabledAt) return undefined;
      return {
        accountId: person.id,
        claims: () => ({ sub: person.id, name: person.name, email: person.email }),
      };
    },
  };
  const provider = new Provider(publicUrl, configuration);

  // Confidential clients' secrets are stored hashed (client-secrets.ts).
  provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string) {
    return clientSecretMatches(this.clientSecret, actual);
  };
  // docs/protocol.md §4: opaque access tokens start with mcp_at_, so leaked ones are easy to recognize and scan for.
  const accessTokens = provider.AccessToken.prototype as unknown as { generateTokenId(this: unknown): string };
  const generateTokenId = accessTokens.generateTokenId;
  accessTokens.generateTokenId = function prefixedTokenId(this: unknown) {
    return `mcp_at_${generateTokenId.call(this)}`;
  };

  provider.on('server_error', (_ctx, error) => console.error('oauth: server_error', error));
  return { provider, keysVersion: keys.version, signingKeys: keys.signing };
}

type ProviderState = {
  current?: Promise<Built>;
  /** The builder of the first provider, reused for every rebuild whichever bundle asks for one. */
  build?: () => Promise<Built>;
  reloading?: Promise<boolean>;
  reloadTimer?: NodeJS.Timeout;
};

const state = processSingleton<ProviderState>('provider', () => ({}));

export async function oauthProvider(): Promise<Provider> {
  if (!state.current) {
    state.build ??= createProvider;
    state.current = state.build().catch((error) => {
      state.current = undefined; // let the next request try again (e.g. database back up)
      throw error;
    });
    startKeyReload();
  }
  return (await state.current).provider;
}

/**
 * The private signing keys of the provider now, active ones first (the provider signs with the first key of
 * each algorithm): Gatehouse's own JWTs are signed with one of them, so that they verify at /oauth/jwks on
 * every instance.
 */
export async function currentSigningKeys(): Promise<readonly JsonWebKey[]> {
  await oauthProvider();
  return (await state.current!).signingKeys;
}

/**
 * Rebuilds the provider when the stored keys changed since it was built (a rotation here or on another
 * instance, or a retired key aging out). Returns whether it did. Checks run one at a time, and a call
 * made during one checks again after it: it sees every rotation committed before it was made.
 */
export function reloadProviderKeys(): Promise<boolean> {
  const next = (state.reloading ?? Promise.resolve(false)).catch(() => false).then(reloadIfChanged);
  state.reloading = next;
  return next;
}

async function reloadIfChanged(): Promise<boolean> {
  const current = state.current;
  if (!current || !state.build) return false; // nothing built yet: the first build reads the keys anyway
  const built = await current;
  if ((await storedKeysVersion()) === built.keysVersion) return false;
  const next = await state.build();
  state.current = Promise.resolve(next);
  console.log('gatehouse: signing and cookie keys reloaded');
  return true;
}

function startKeyReload(): void {
  if (state.reloadTimer || env().signingKeys) return; // keys from the environment change only with a restart
  // Outside any transaction: the first provider may be built by a request inside one (the token endpoint).
  state.reloadTimer = outsideTransaction(() =>
    setInterval(() => {
      reloadProviderKeys().catch((error) => console.error('gatehouse: key reload failed', (error as Error).message));
    }, env().keyReloadMs),
  );
  state.reloadTimer.unref();
}
