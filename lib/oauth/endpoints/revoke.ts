// POST /oauth/revoke (RFC 7009). The provider ends the whole grant when either of its tokens is revoked;
// Gatehouse records it on its own grant row too, so the app leaves Connected Apps and the audit log says
// that the client disconnected itself.
import { readLimitedBody } from '@/lib/http/body';
import type Provider from 'oidc-provider';
import { inTransaction } from '@/lib/db/transaction';
import { storageId } from '../adapter';
import { metadataDocumentResolves } from '../cimd';
import { lockGrantForRevocation } from '@/lib/grants/locks';
import { revokeGrant } from '@/lib/grants/revoke';
import type { RunProvider } from './register';
import { refuseUnstorableParameters } from './parameters';
import { presentedClientId } from './token';
import { InvalidClient, PayloadTooLarge } from '../errors';
import { withBody } from './responses';

export async function handleRevocation(request: Request, run: RunProvider, provider: Provider, ip: string): Promise<Response> {
  const text = await readLimitedBody(request, 64 * 1024);
  if (text === null) throw new PayloadTooLarge('invalid_request', 'the request body is too large');
  const form = new URLSearchParams(text);
  refuseUnstorableParameters(form);
  const token = form.get('token');
  const forward = withBody(request, text, request.headers.get('content-type') ?? 'application/x-www-form-urlencoded');
  if (!token) return run(forward);
  // The provider authenticates the client inside the transaction below: a metadata-document client is
  // fetched now, with no database connection held (lib/db/transaction.ts).
  if (!(await metadataDocumentResolves(provider, presentedClientId(request, form)))) {
    throw new InvalidClient('the client metadata document could not be fetched');
  }

  const where = {
    model: { in: ['AccessToken', 'RefreshToken'] },
    id: { in: [storageId('AccessToken', token), storageId('RefreshToken', token)] },
  };
  return inTransaction(async (tx) => {
    const row = await tx.oidcModel.findFirst({ where, select: { grantId: true } });
    if (row?.grantId) await lockGrantForRevocation(row.grantId);
    const response = await run(forward);
    // RFC 7009 answers 200 even when it revoked nothing (another client's token, an unknown one): only
    // a token the provider actually removed, with its grant, disconnects the app.
    if (response.status === 200 && row?.grantId && (await tx.oidcModel.count({ where })) === 0) {
      await revokeGrant({ grantId: row.grantId, byPersonId: null, reason: 'client_revoked_token', ip });
    }
    return response;
  });
}
