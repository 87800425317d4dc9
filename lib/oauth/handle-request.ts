// The single entry from Next.js route handlers into the OAuth provider: Gatehouse's own steps for the
// endpoints that need them (endpoints/*), then the provider through the bridge.
import type Provider from 'oidc-provider';
import { isDatabaseUnavailable } from '@/lib/db/errors';
import { env } from '@/lib/env';
import { bufferRequest, isRequestAborted } from '@/lib/http/body';
import { clientAddress } from '@/lib/http/client-address';
import { runNodeHandler, type BridgeOptions } from './bridge';
import { endForeignProviderSession, normalizeAuthorizationRequest } from './endpoints/authorize';
import { handleClientManagement, handleRegistration } from './endpoints/register';
import { clientIdFromPath, refuseUnstorableParameters } from './endpoints/parameters';
import { corsPreflight, oauthError, temporarilyUnavailable, withOpenCors } from './endpoints/responses';
import { handleRevocation } from './endpoints/revoke';
import { handleToken } from './endpoints/token';
import { oauthProvider } from './provider';
import { REGISTRATION_LIMITS } from './registration';
import { UNAVAILABLE_DESCRIPTION } from './unavailable';

/** No OAuth endpoint takes more than a registration's worth of body (RFC 7591 metadata, 64 KiB). */
const OAUTH_BODY_LIMIT = REGISTRATION_LIMITS.bodyBytes;

const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();

export async function handleOAuthRequest(incoming: Request): Promise<Response> {
  // The body is read here, once, before anything else: a client that announces a body and sends it
  // slowly then waits on its own socket, never inside a database transaction (lib/db/transaction.ts).
  let request: Request | null;
  try {
    request = await bufferRequest(incoming, OAUTH_BODY_LIMIT);
  } catch {
    return oauthError(400, 'invalid_request', 'the request body could not be read'); // the client went away
  }
  if (!request) {
    const path = new URL(incoming.url).pathname;
    return path === '/oauth/register' || path.startsWith('/oauth/register/')
      ? withOpenCors(oauthError(413, 'invalid_client_metadata', `the registration body must be at most ${OAUTH_BODY_LIMIT} bytes`))
      : oauthError(413, 'invalid_request', 'the request body is too large');
  }
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
      // A metadata-document client (an https URL) is never registered here, so there is nothing to manage;
      // looking it up would fetch the document inside the management transaction.
      if (clientId.startsWith('https://')) {
        return withOpenCors(
          oauthError(401, 'invalid_token', 'this client is not managed through registration', { 'WWW-Authenticate': 'Bearer error="invalid_token"' }),
        );
      }
      return await handleClientManagement(request, run, clientId, ip);
    }
    if (path === '/oauth/token' && request.method === 'POST') return await handleToken(request, run, provider, ip);
    if (path === '/oauth/revoke' && request.method === 'POST') return await handleRevocation(request, run, provider, ip);
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
