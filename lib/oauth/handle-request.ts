// The single entry from Next.js route handlers into the OAuth provider: Gatehouse's own steps for the
// endpoints that need them (endpoints/*), then the provider through the bridge. Those steps refuse a
// request by throwing an OAuthError (errors.ts); the one catch below renders it, and turns anything
// else into the OAuthError it stands for. The provider's own answers pass through as it wrote them.
import type Provider from 'oidc-provider';
import { isDatabaseUnavailable } from '@/lib/db/errors';
import { env } from '@/lib/env';
import { bufferRequest, isRequestAborted } from '@/lib/http/body';
import { clientAddress } from '@/lib/http/client-address';
import { runNodeHandler, type BridgeOptions } from './bridge';
import { endForeignProviderSession, normalizeAuthorizationRequest } from './endpoints/authorize';
import { handleClientManagement, handleRegistration } from './endpoints/register';
import { clientIdFromPath, refuseUnstorableParameters } from './endpoints/parameters';
import { corsPreflight } from './endpoints/responses';
import { InvalidRequest, InvalidToken, OAuthError, PayloadTooLarge, renderOAuthError, ServerError, TemporarilyUnavailable } from './errors';
import { handleRevocation } from './endpoints/revoke';
import { handleToken } from './endpoints/token';
import { oauthProvider } from './provider';
import { REGISTRATION_LIMITS } from './registration';
import { UNAVAILABLE_DESCRIPTION } from './unavailable';

/** No OAuth endpoint takes more than a registration's worth of body (RFC 7591 metadata, 64 KiB). */
const OAUTH_BODY_LIMIT = REGISTRATION_LIMITS.bodyBytes;

const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();

export async function handleOAuthRequest(incoming: Request): Promise<Response> {
  const path = new URL(incoming.url).pathname;
  try {
    return await answer(incoming, path);
  } catch (error) {
    // RFC 7591 registration and RFC 7592 management answer browser-based clients with CORS `*` (docs/protocol.md §2),
    // their refusals as well as their successes: a browser hides an answer without it from the client.
    return renderOAuthError(asOAuthError(error, incoming.method, path), { openCors: isRegistrationPath(path) });
  }
}

function isRegistrationPath(path: string): boolean {
  return path === '/oauth/register' || path.startsWith('/oauth/register/');
}

/** What a failure means for the client: a refusal as thrown, an outage as 503, anything else as 500. */
function asOAuthError(error: unknown, method: string, path: string): OAuthError {
  if (error instanceof OAuthError) return error;
  // The client went away mid-body: nothing failed here, and nobody reads the answer.
  if (isRequestAborted(error)) return new InvalidRequest('the request body did not arrive');
  if (isDatabaseUnavailable(error)) {
    console.error(`oauth: ${method} ${path}: database unreachable`, (error as Error).message);
    return new TemporarilyUnavailable(UNAVAILABLE_DESCRIPTION);
  }
  console.error(`oauth: ${method} ${path} failed`, error);
  return new ServerError('The authorization server could not complete the request.');
}

async function answer(incoming: Request, path: string): Promise<Response> {
  // The body is read here, once, before anything else: a client that announces a body and sends it
  // slowly then waits on its own socket, never inside a database transaction (lib/db/transaction.ts).
  let request: Request | null;
  try {
    request = await bufferRequest(incoming, OAUTH_BODY_LIMIT);
  } catch {
    throw new InvalidRequest('the request body could not be read'); // the client went away
  }
  if (!request) {
    throw isRegistrationPath(path)
      ? new PayloadTooLarge('invalid_client_metadata', `the registration body must be at most ${OAUTH_BODY_LIMIT} bytes`)
      : new PayloadTooLarge('invalid_request', 'the request body is too large');
  }
  let provider: Provider;
  try {
    provider = await oauthProvider();
  } catch (error) {
    console.error('oauth: the provider could not start', error);
    throw new TemporarilyUnavailable('The authorization server is starting or its database is unreachable.');
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
  refuseUnstorableParameters(url.searchParams);
  if (path === '/oauth/register') {
    if (request.method === 'OPTIONS') return corsPreflight('POST');
    if (request.method === 'POST') return await handleRegistration(request, run, ip);
  }
  if (path.startsWith('/oauth/register/')) {
    if (request.method === 'OPTIONS') return corsPreflight('GET, PUT, DELETE');
    const clientId = clientIdFromPath(path.slice('/oauth/register/'.length));
    if (clientId === null) throw new InvalidRequest('the client id in the path is not valid');
    // A metadata-document client (an https URL) is never registered here, so there is nothing to manage;
    // looking it up would fetch the document inside the management transaction.
    if (clientId.startsWith('https://')) throw new InvalidToken('this client is not managed through registration');
    return await handleClientManagement(request, run, clientId, ip);
  }
  if (path === '/oauth/token' && request.method === 'POST') return await handleToken(request, run, provider, ip);
  if (path === '/oauth/revoke' && request.method === 'POST') return await handleRevocation(request, run, provider, ip);
  if (path === '/oauth/authorize' || path.startsWith('/oauth/authorize/')) {
    await endForeignProviderSession(provider, request, bridge);
    return await run(normalizeAuthorizationRequest(request));
  }
  return await run(request);
}
