// Gatehouse's own record of each client (docs/protocol.md §1): every client has one, CIMD ones included.
import { appIdentity, assignApp, ensureClientApp, recountApps } from '@/lib/apps/apps';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { revokeGrantsWhere } from '@/lib/grants/revoke';

export function clientRecord(clientId: string) {
  return db().oAuthClient.findUnique({ where: { clientId } });
}

/**
 * A client the provider knows but Gatehouse has no row for yet: a Client ID Metadata Document client on
 * first use (the provider caches its document only in memory).
 */
export async function ensureClientRecord(client: { clientId: string; clientName?: string }): Promise<void> {
  const isMetadataDocument = client.clientId.startsWith('https://');
  const row = await db().oAuthClient.upsert({
    where: { clientId: client.clientId },
    create: {
      clientId: client.clientId,
      registration: isMetadataDocument ? 'metadata_document' : 'dynamic',
      name: client.clientName ?? null,
      hostname: isMetadataDocument ? new URL(client.clientId).hostname : null,
    },
    update: {},
    select: { appId: true },
  });
  // A metadata document URL is its own app (lib/apps/identity.ts); made with the row, on first use.
  if (!row.appId) await ensureClientApp(client.clientId);
}

/** Whether an instance admin disabled the client (it is then invalid_client everywhere). */
export async function isDisabled(clientId: string): Promise<boolean> {
  const row = await db().oAuthClient.findUnique({ where: { clientId }, select: { disabledAt: true } });
  return Boolean(row?.disabledAt);
}

/** The hostname people see for a client: its first redirect URI's host. */
export function redirectHostname(uris: string[]): string | null {
  for (const uri of uris) {
    try {
      const host = new URL(uri).hostname;
      if (host) return host;
    } catch {
      // not a URL: try the next one
    }
  }
  return null;
}

/** What people are shown of a client: its name and where its authorization responses go. */
export type ClientDescription = { name: string | null; redirectUris: string[] };

/**
 * The provider's stored metadata of a registered client, as people see it (CIMD clients have none
 * stored). `fields` is the whole metadata, to tell which fields an update changed.
 */
export async function storedClientMetadata(tx: Tx, clientId: string): Promise<(ClientDescription & { fields: Record<string, unknown> }) | null> {
  const row = await tx.oidcModel.findUnique({ where: { model_id: { model: 'Client', id: clientId } }, select: { payload: true } });
  if (!row || typeof row.payload !== 'object' || row.payload === null || Array.isArray(row.payload)) return null;
  return { ...describeClient(row.payload as Record<string, unknown>), fields: row.payload as Record<string, unknown> };
}

function describeClient(metadata: Record<string, unknown>): ClientDescription {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.filter((uri): uri is string => typeof uri === 'string') : [];
  return { name: typeof metadata.client_name === 'string' ? metadata.client_name : null, redirectUris: uris };
}

/** Fields never compared or recorded: credentials, and what the provider adds to its responses. */
const UNRECORDED_FIELDS = new Set(['client_secret', 'client_secret_expires_at', 'registration_access_token', 'registration_client_uri']);

/**
 * Takes an RFC 7592 update into Gatehouse's own record in the caller's transaction (the one the
 * provider's write is in): the row the consoles and Connected Apps read gets the name and host the
 * consent screen shows, the registration moves to the app its new name makes it (its hosts and schemes
 * cannot change, register-update.ts), and `client.updated` records before and after.
 */
export async function recordClientUpdate(
  tx: Tx,
  update: { clientId: string; ip: string | null; before: ClientDescription & { fields: Record<string, unknown> }; after: Record<string, unknown> },
): Promise<void> {
  const after = describeClient(update.after);
  await tx.oAuthClient.updateMany({
    where: { clientId: update.clientId },
    data: { name: after.name, hostname: redirectHostname(after.redirectUris) },
  });
  const row = await tx.oAuthClient.findUnique({ where: { clientId: update.clientId }, select: { registration: true } });
  if (row) await assignApp(update.clientId, appIdentity({ ...update.after, client_id: update.clientId, registration: row.registration }));
  const fields = [...new Set([...Object.keys(update.before.fields), ...Object.keys(update.after)])]
    .filter((field) => !UNRECORDED_FIELDS.has(field))
    .filter((field) => JSON.stringify(update.before.fields[field]) !== JSON.stringify(update.after[field]))
    .sort();
  await recordAudit(
    {
      type: 'client.updated',
      clientId: update.clientId,
      ip: update.ip,
      data: {
        before: { name: update.before.name, redirectUris: update.before.redirectUris },
        after: { name: after.name, redirectUris: after.redirectUris },
        changedFields: fields,
      },
    },
    tx,
  );
}

/** Removes the provider's record of a client: its metadata and its RFC 7592 registration access tokens. */
export async function deleteProviderClient(tx: Tx, clientId: string): Promise<void> {
  await tx.oidcModel.deleteMany({ where: { model: 'Client', id: clientId } });
  await tx.oidcModel.deleteMany({ where: { model: 'RegistrationAccessToken', payload: { path: ['clientId'], equals: clientId } } });
}

export type ClientDeletion = {
  /** The instance admin who deleted it; null when the client deleted itself (RFC 7592). */
  byPersonId: string | null;
  ip: string | null;
  by: 'client' | 'instance_admin';
};

/**
 * Deletes a client everywhere, in one transaction (joining the caller's): every grant revoked with its
 * audit event, the provider's records, Gatehouse's row, and a `client.deleted` event. Its tokens stop
 * working at once and it gets invalid_client from then on. Returns how many grants were revoked.
 */
export function deleteClient(clientId: string, deletion: ClientDeletion): Promise<number> {
  return inTransaction(async (tx) => {
    const row = await tx.oAuthClient.findUnique({ where: { clientId }, select: { name: true, appId: true } });
    const revoked = await revokeGrantsWhere({ clientId }, { byPersonId: deletion.byPersonId, reason: 'client_deleted', ip: deletion.ip });
    await deleteProviderClient(tx, clientId);
    await tx.oAuthClient.deleteMany({ where: { clientId } });
    await recountApps(tx, [row?.appId]);
    await recordAudit(
      {
        type: 'client.deleted',
        actorPersonId: deletion.byPersonId,
        clientId,
        ip: deletion.ip,
        data: { by: deletion.by, name: row?.name ?? null, revokedGrants: revoked },
      },
      tx,
    );
    return revoked;
  });
}

/** The registered redirect URIs of each client, read from the provider's stored metadata (CIMD clients have none stored). */
export async function redirectUrisOf(clientIds: string[]): Promise<Map<string, string[]>> {
  const rows = await db().oidcModel.findMany({ where: { model: 'Client', id: { in: clientIds } }, select: { id: true, payload: true } });
  return new Map(
    rows.map((row) => {
      const uris = (row.payload as { redirect_uris?: unknown } | null)?.redirect_uris;
      return [row.id, Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : []];
    }),
  );
}
