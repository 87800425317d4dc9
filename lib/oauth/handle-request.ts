// The single entry from Next.js route handlers into the OAuth provider: Gatehouse's own steps for the
// endpoints that need them (endpoints/*), then the provider through the bridge.
import type Provider from 'oidc-provider';
import { isDatabaseUnavailable } from '@/lib/db/errors';
import { env } from '@/lib/env';
import { isRequestAborted } from '@/lib/http/body';
import { clientAddress } from '@/lib/http/client-address';
import { runNodeHandler, type BridgeOptions } from './bridge';
import { endForeignProviderSession, normalizeAuthorizationRequest } from './endpoints/authorize';
import { handleClientManagement, handleRegistration } from './endpoints/register';
import { clientIdFromPath, refuseUnstorableParameters } from './endpoints/parameters';
import { corsPreflight, oauthError, temporarilyUnavailable } from './endpoints/responses';
import { handleRevocation } from './endpoints/revoke';
import { handleToken } from './endpoints/token';
import { oauthProvider } from './provider';
import { UNAVAILABLE_DESCRIPTION } from './unavailable';

const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();

export async function handleOAuthRequest(request: Request): Promise<Response> {
  let provider: Provider;
  try {
    provider = await oauthProvider();
  } catch (error) {
    console.error('oauth: the provider could not start', error);
    return temporarilyUnavailable('The authorization server is starting or its database is unreachable.');
  }
  let callback = callbacks.get(provider);
  if (!callback) {
    callback = provider.callback();
    callbacks.set(provider, callback);
  }
  const handler = callback;
  const ip = clientAddress(request.headers);
  const bridge: BridgeOptions = { publicUrl: env().publicUrl, clientAddress: ip };
  const run = (forward: Request) => runNodeHandler(handler, forward, bridge);

  const url = new URL(request.url);
  const path = url.pathname;
  const refused = refuseUnstorableParameters(url.searchParams);
  if (refused) return refused;
  try {
    if (path === '/oauth/register') {
      if (request.method === 'OPTIONS') return corsPreflight('POST');
      if (request.method === 'POST') return await handleRegistration(request, run, ip);
    }
    if (path.startsWith('/oauth/register/')) {
      if (request.method === 'OPTIONS') return corsPreflight('GET, PUT, DELETE');
      const clientId = clientIdFromPath(path.slice('/oauth/register/'.length));
      if (clientId === null) return oauthError(400, 'invalid_request', 'the client id in the path is not valid');
      return await handleClientManagement(request, run, clientId, ip);
    }
    if (path === '/oauth/token' && request.method === 'POST') return await handleToken(request, run, provider, ip);
    if (path === '/oauth/revoke' && request.method === 'POST') return await handleRevocation(request, run, ip);
    if (path === '/oauth/authorize' || path.startsWith('/oauth/authorize/')) {
      await endForeignProviderSession(provider, request, bridge);
      return await run(normalizeAuthorizationRequest(request));
    }
    return await run(request);
  } catch (error) {
    // The client went away mid-body: nothing failed here, and nobody reads the answer.
    if (isRequestAborted(error)) return oauthError(400, 'invalid_request', 'the request body did not arrive');
    if (isDatabaseUnavailable(error)) {
      console.error(`oauth: ${request.method} ${path}: database unreachable`, (error as Error).message);
      return temporarilyUnavailable(UNAVAILABLE_DESCRIPTION);
    }
    console.error(`oauth: ${request.method} ${path} failed`, error);
    return oauthError(500, 'server_error', 'The authorization server could not complete the request.');
  }
}
