// The one oidc-provider instance of this process, configured for Gatehouse. Route handlers reach it
// through the bridge (bridge.ts); it lives on globalThis because Next.js may evaluate this module once
// per route bundle, and two providers would disagree about in-memory state.
import Provider, { type Configuration } from 'oidc-provider';
import { env } from '@/lib/env';
import { db } from '@/lib/db/client';
import { PrismaAdapter } from './adapter';
import { loadProviderKeys } from './keys';

/** Every provider endpoint lives under /oauth (SPEC §2); nothing points outside it. */
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
} as const;

async function createProvider(): Promise<Provider> {
  const { publicUrl } = env();
  const keys = await loadProviderKeys();
  const configuration: Configuration = {
    adapter: PrismaAdapter,
    jwks: { keys: keys.signing as Configuration['jwks'] extends { keys: infer K } | undefined ? K : never },
    cookies: { keys: keys.cookies },
    routes: OAUTH_ROUTES,
    responseTypes: ['code'],
    // PKCE for every client; oidc-provider 9 accepts only S256 and refuses a missing method.
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'mcp:read', 'mcp:write'],
    claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
    interactions: { url: (_ctx, interaction) => `/consent/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
    },
    async findAccount(_ctx, sub) {
      const person = await db().person.findUnique({ where: { id: sub } });
      if (!person || person.disabledAt) return undefined;
      return {
        accountId: person.id,
        claims: () => ({ sub: person.id, name: person.name, email: person.email }),
      };
    },
  };
  const provider = new Provider(publicUrl, configuration);
  // Failures are answered to the client by the provider; log them here for the operator.
  provider.on('server_error', (_ctx, error) => console.error('oauth: server_error', error));
  return provider;
}

const holder = globalThis as unknown as { gatehouseProvider?: Promise<Provider> };

export function oauthProvider(): Promise<Provider> {
  holder.gatehouseProvider ??= createProvider().catch((error) => {
    holder.gatehouseProvider = undefined; // let the next request try again (e.g. database back up)
    throw error;
  });
  return holder.gatehouseProvider;
}
