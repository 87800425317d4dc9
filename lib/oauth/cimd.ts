// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02): a client_id that is an
// https URL names a JSON document describing the client. oidc-provider fetches it (2.5 s timeout, no
// redirects, 5 KiB, private and loopback addresses refused) and caches it in memory; Gatehouse adds its
// own client row on first use (clients.ts). Experimental in oidc-provider: the version is pinned in
// package.json and the `ack` below must match it.
import type { Configuration } from 'oidc-provider';
import { env } from '@/lib/env';

export const CIMD_DRAFT = 'draft-02';

export function cimdOptions(): Pick<NonNullable<Configuration['features']>, 'clientIdMetadataDocument'> {
  if (!env().cimd) return {};
  return {
    clientIdMetadataDocument: {
      enabled: true,
      ack: CIMD_DRAFT,
    },
  } as Pick<NonNullable<Configuration['features']>, 'clientIdMetadataDocument'>;
}
