// POST /oauth/revoke (RFC 7009). The provider ends the whole grant when either of its tokens is revoked;
// Gatehouse records it on its own grant row too, so the app leaves Connected Apps and the audit log says
// that the client disconnected itself.
import { inTransaction } from '@/lib/db/transaction';
import { storageId } from '../adapter';
import { revokeGrant } from '../grants';
import type { RunProvider } from './register';
import { readLimitedText, oauthError, withBody } from './responses';

export async function handleRevocation(request: Request, run: RunProvider, ip: string): Promise<Response> {
  const text = await readLimitedText(request, 64 * 1024);
  if (text === null) return oauthError(413, 'invalid_request', 'the request body is too large');
  const token = new URLSearchParams(text).get('token');
  const forward = withBody(request, text, request.headers.get('content-type') ?? 'application/x-www-form-urlencoded');
  if (!token) return run(forward);

  return inTransaction(async (tx) => {
    const row = await tx.oidcModel.findFirst({
      where: {
        model: { in: ['AccessToken', 'RefreshToken'] },
        id: { in: [storageId('AccessToken', token), storageId('RefreshToken', token)] },
      },
      select: { grantId: true },
    });
    const response = await run(forward);
    if (response.status === 200 && row?.grantId) {
      await revokeGrant({ grantId: row.grantId, byPersonId: null, reason: 'client_revoked_token', ip });
    }
    return response;
  });
}
