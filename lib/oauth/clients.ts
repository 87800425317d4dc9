// Gatehouse's own record of each client (SPEC §1): every client has one, CIMD ones included.
import { queries } from '@/lib/db/transaction';

export function clientRecord(clientId: string) {
  return queries().oAuthClient.findUnique({ where: { clientId } });
}

/**
 * A client the provider knows but Gatehouse has no row for yet: a Client ID Metadata Document client on
 * first use (the provider caches its document only in memory).
 */
export async function ensureClientRecord(client: { clientId: string; clientName?: string }): Promise<void> {
  const isMetadataDocument = client.clientId.startsWith('https://');
  await queries().oAuthClient.upsert({
    where: { clientId: client.clientId },
    create: {
      clientId: client.clientId,
      registration: isMetadataDocument ? 'metadata_document' : 'dynamic',
      name: client.clientName ?? null,
      hostname: isMetadataDocument ? new URL(client.clientId).hostname : null,
    },
    update: {},
  });
}

/** Whether an instance admin disabled the client (it is then invalid_client everywhere). */
export async function isDisabled(clientId: string): Promise<boolean> {
  const row = await queries().oAuthClient.findUnique({ where: { clientId }, select: { disabledAt: true } });
  return Boolean(row?.disabledAt);
}
