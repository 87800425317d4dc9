// Approving a metadata-document app ahead of time (docs/protocol.md §7): an org admin pastes the https
// URL a client will present as its client_id (draft-ietf-oauth-client-id-metadata-document), before anyone
// in the org connects it, so that "approved apps only" can let it in. The document is fetched and checked
// exactly as when the client presents it (lib/oauth/cimd.ts), with no transaction open; then the app is
// made under the key the client's first use will look up (`document:<url>`, identity.ts), with no
// registration, and approved, in one transaction. The client's first connection joins that app.
import type { OrgAdmin } from '@/lib/admin/access';
import { invalid } from '@/lib/admin/errors';
import { inTransaction } from '@/lib/db/transaction';
import { type DocumentProblem, resolveMetadataDocument } from '@/lib/oauth/cimd';
import { oauthProvider } from '@/lib/oauth/provider';
import { appIdentity, ensureApp } from './apps';
import { decideAppIn } from './decisions';
import { tellApproved } from './request-answers';

/** What the admin is told when the document cannot be had. */
const REFUSALS: Record<DocumentProblem, string> = {
  off: 'This Gatehouse does not accept metadata documents (CIMD is off)',
  invalid_url: 'This is not a metadata document URL',
  unreachable: 'The metadata document could not be fetched',
  timeout: 'The metadata document took too long to fetch (more than 2.5 seconds)',
  private_address: 'The metadata document URL points to a private or loopback address, which Gatehouse never fetches from',
  too_large: 'The metadata document is too large (at most 5 KiB)',
  bad_status: 'The metadata document could not be fetched',
  not_json: 'The metadata document is not JSON',
  invalid_document: 'The metadata document is not accepted',
  refused: 'This client is disabled on this Gatehouse',
};

/** Refusals whose reason says it all: the detail would only repeat it. */
const SELF_EXPLAINED = new Set<DocumentProblem>(['off', 'timeout', 'private_address', 'too_large', 'refused']);

/** Approves for the admin's org the app of the metadata document at `url`. Returns the app and its name. */
export async function addDocumentApp(admin: OrgAdmin, url: string, ip: string): Promise<{ appId: string; name: string }> {
  const resolved = await resolveMetadataDocument(await oauthProvider(), url);
  if (!resolved.ok) {
    const reason = REFUSALS[resolved.problem];
    throw invalid(SELF_EXPLAINED.has(resolved.problem) ? `${reason}.` : `${reason}: ${resolved.detail}.`);
  }
  const identity = appIdentity({ registration: 'metadata_document', client_id: resolved.clientId, client_name: resolved.clientName });
  // One transaction: an approval refused (a block on an app sharing the document's host) leaves no app
  // behind. The app may exist already (someone connected with the document and asked for it): its
  // requesters are told after the commit.
  const decided = await inTransaction(async (tx) => {
    const id = await ensureApp(identity);
    return { id, ...(await decideAppIn(tx, admin, id, 'approved', ip)) };
  });
  await tellApproved(admin, decided.appName, decided.approvedRequesters);
  return { appId: decided.id, name: identity.displayName };
}
