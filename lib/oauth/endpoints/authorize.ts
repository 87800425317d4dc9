// GET /oauth/authorize (and its resume step) around the provider:
// - the resource indicator is canonicalised or refused (resource.ts);
// - the requested scope is normalized (scopes.ts) so that a client asking for nothing is offered
//   mcp:read and mcp:write, and unknown scopes are dropped instead of failing the request;
// - the provider's own browser session may not speak for anyone but the person signed in to Gatehouse:
//   when it belongs to someone else (people switched accounts in this browser), or nobody is signed in,
//   it is ended before the provider looks at it. The consent screen then finishes the login with the
//   Gatehouse person (docs/protocol.md §5: the approving account is always the one signed in).
import type Provider from 'oidc-provider';
import { signedInPersonId } from '@/lib/auth/signed-in';
import { nodePair, type BridgeOptions } from '../bridge';
import { resourceParameter } from '../resource';
import { normalizeRequestedScope } from '../scopes';

// Only GET: oidc-provider serves the authorization endpoint over POST only with enableHttpPostMethods,
// which Gatehouse leaves off.
export function normalizeAuthorizationRequest(request: Request): Request {
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.pathname !== '/oauth/authorize') return request;
  url.searchParams.set('scope', normalizeRequestedScope(url.searchParams.get('scope')));
  // RFC 8707: the resource in its one canonical spelling (resource.ts), which the grant then stores. A
  // refused one is left for the provider to answer with invalid_target on the client's redirect URI.
  const resource = resourceParameter(url.searchParams.getAll('resource'));
  url.searchParams.delete('resource');
  const kept = resource.ok ? resource.resource : resource.refused;
  if (kept !== null) url.searchParams.set('resource', kept);
  return new Request(url, { method: 'GET', headers: request.headers });
}

export async function endForeignProviderSession(provider: Provider, request: Request, bridge: BridgeOptions): Promise<void> {
  if (!/(^|;\s*)_session=/.test(request.headers.get('cookie') ?? '')) return;
  const { req, res } = nodePair(request, bridge);
  const ctx = provider.createContext(req, res);
  const session = await provider.Session.get(ctx as never);
  if (!session.accountId) return;
  const personId = await signedInPersonId(request.headers);
  if (session.accountId !== personId) await session.destroy();
}
