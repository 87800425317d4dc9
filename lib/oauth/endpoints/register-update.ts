// PUT /oauth/register/{client_id} (RFC 7592 §2.2) around the provider. A client may rename itself or move
// its redirect URIs within what it registered — paths, loopback ports — but never to another host or
// private-use scheme: an organization approved (or blocked) this client as it was, and clearing those
// decisions on a move would clear the blocks too. Nor may it change the kind of credential it
// authenticates with (registration.ts sameCredential). Such an update is refused; the client registers
// again as a new client, which everyone then sees as new. An accepted update reaches Gatehouse's own
// record and the audit log in the transaction of the provider's write.
import { inTransaction } from '@/lib/db/transaction';
import { recordClientUpdate, storedClientMetadata } from '../clients';
import { sameCredential, sameRedirectTargets } from '../registration';
import { InvalidClientMetadata, InvalidRedirectUri } from '../errors';

type RunProvider = (request: Request) => Promise<Response>;

const MOVED = 'an update cannot change the hosts or private-use schemes of redirect_uris (only their paths, and loopback ports): register again as a new client';

/**
 * `request` carries a body already read and normalized (registration.ts): nothing is read from the
 * network while the transaction is open. The provider authenticates the registration access token
 * before anything about the stored client is compared, so an unauthenticated caller learns nothing.
 */
export async function updateRegistration(request: Request, run: RunProvider, clientId: string, ip: string): Promise<Response> {
  // A refusal is thrown from inside the transaction: it rolls back the provider's write with it.
  return inTransaction(async (tx) => {
    // Concurrent updates of one client take turns, so that each compares with what the last one left.
    await tx.$queryRaw`SELECT client_id FROM clients WHERE client_id = ${clientId} FOR UPDATE`;
    const before = await storedClientMetadata(tx, clientId);
    const answer = await run(request);
    if (answer.status !== 200) return answer;
    if (!before) throw new Error(`the provider updated client ${clientId}, which has no stored metadata`);
    const after = (await answer.clone().json()) as Record<string, unknown>;
    const afterUris = Array.isArray(after.redirect_uris) ? (after.redirect_uris as string[]) : [];
    if (!sameRedirectTargets(before.redirectUris, afterUris)) {
      throw new InvalidRedirectUri(MOVED);
    }
    const method = before.fields.token_endpoint_auth_method;
    if (!sameCredential(method, after.token_endpoint_auth_method)) {
      throw new InvalidClientMetadata(
        `an update cannot change how the client authenticates (token_endpoint_auth_method is ${typeof method === 'string' ? method : 'client_secret_basic'}; only client_secret_basic and client_secret_post may replace each other): register again as a new client`,
      );
    }
    await recordClientUpdate(tx, { clientId, ip, before, after });
    return answer;
  });
}
