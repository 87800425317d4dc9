// The cells that describe a client the same way in the org and instance consoles.
import type { ReactNode } from 'react';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import type { ClientRegistration } from '@/lib/generated/prisma/enums';

export const REGISTRATION_LABELS: Record<ClientRegistration, string> = {
  dynamic: 'Self-registered (DCR)',
  metadata_document: 'Metadata document (CIMD)',
  admin: 'Registered by an owner',
};

/** Name, an optional badge, how it registered, and its client ID (truncated, in full on hover). */
export function ClientIdentityCell({ name, badge, registration, clientId }: { name: string; badge?: ReactNode; registration: ClientRegistration; clientId: string }) {
  return (
    <td className="px-3 py-2 align-top">
      <span className="font-medium">{name}</span>
      {badge ? <span className="ml-2">{badge}</span> : null}
      <span className="block text-xs text-slate-500">{REGISTRATION_LABELS[registration]}</span>
      <span className="block max-w-[16rem] truncate font-mono text-xs text-slate-500" title={clientId}>
        {clientId}
      </span>
    </td>
  );
}

/** The registered redirect URIs; a metadata-document client shows its hostname instead. */
export function RedirectUrisCell({ uris, hostname }: { uris: string[]; hostname: string | null }) {
  return (
    <td className="px-3 py-2 align-top">
      <ul className="max-w-[18rem] space-y-0.5 font-mono text-xs break-all">{uris.length ? uris.map((uri) => <li key={uri}>{uri}</li>) : <li className="text-slate-500">{hostname ?? '—'}</li>}</ul>
    </td>
  );
}

/** A registration's first sight, last use and live connections: the same three columns on both Clients pages. */
export function UsageCells({ firstSeenAt, lastUsedAt, liveGrants }: { firstSeenAt: string; lastUsedAt: string | null; liveGrants: number }) {
  return (
    <>
      <td className="px-3 py-2 align-top whitespace-nowrap" title={exactTime(firstSeenAt)}>
        {relativeTime(firstSeenAt)}
      </td>
      <td className="px-3 py-2 align-top whitespace-nowrap">{lastUsedAt ? relativeTime(lastUsedAt) : 'not yet'}</td>
      <td className="px-3 py-2 align-top">{liveGrants}</td>
    </>
  );
}
