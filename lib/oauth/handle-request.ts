// The single entry from Next.js route handlers into the OAuth provider.
import { env } from '@/lib/env';
import { clientAddress } from '@/lib/http/client-address';
import { runNodeHandler } from './bridge';
import { oauthProvider } from './provider';

export async function handleOAuthRequest(request: Request): Promise<Response> {
  let provider;
  try {
    provider = await oauthProvider();
  } catch (error) {
    console.error('oauth: the provider could not start', error);
    return Response.json(
      { error: 'temporarily_unavailable', error_description: 'The authorization server is starting or its database is unreachable.' },
      { status: 503, headers: { 'Retry-After': '5', 'Cache-Control': 'no-store' } },
    );
  }
  return runNodeHandler(provider.callback(), request, {
    publicUrl: env().publicUrl,
    clientAddress: clientAddress(request.headers),
  });
}
