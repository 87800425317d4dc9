// The provider's browser session ends with the person's Gatehouse session (docs/protocol.md §5: sign-out ends the
// provider session too). next-auth's signOut event receives no request, so the sign-out route calls this.
import { env } from '@/lib/env';
import { nodePair } from './bridge';
import { oauthProvider } from './provider';

/** Destroys the provider session named by the request's `_session` cookie; returns cookies that clear it. */
export async function endProviderSession(request: Request): Promise<string[]> {
  const cookie = request.headers.get('cookie') ?? '';
  if (!/(^|;\s*)_session=/.test(cookie)) return [];
  const provider = await oauthProvider();
  const { publicUrl } = env();
  const { req, res } = nodePair(request, { publicUrl, clientAddress: '' });
  const session = await provider.Session.get(provider.createContext(req, res) as never);
  await session.destroy();
  const secure = publicUrl.startsWith('https://') ? '; Secure' : '';
  return ['_session', '_session.sig'].map((name) => `${name}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure}`);
}
