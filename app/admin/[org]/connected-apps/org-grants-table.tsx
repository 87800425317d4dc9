'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { GrantRow, OrgGrantFilter } from '@/lib/grants/list';
import { MCP_SCOPES } from '@/lib/oauth/scopes';
import { ownValue } from '@/lib/own-keys';
import { Badge, DataTable, EmptyState, selectClass } from '../../components';
import { revokeClientAction, revokeGrantAction } from './actions';

type Row = Omit<GrantRow, 'approvedAt' | 'lastUsedAt'> & { approvedAt: string; lastUsedAt: string | null };
type Facets = { people: { id: string; name: string; email: string }[]; clients: { clientId: string; name: string }[] };
type Pending = { kind: 'grant'; row: Row } | { kind: 'client'; clientId: string; name: string; count: number };

export function OrgGrantsTable({ org, grants, facets, filter }: { org: string; grants: Row[]; facets: Facets; filter: OrgGrantFilter }) {
  const router = useRouter();
  const [rows, setRows] = useState(grants);
  const [confirming, setConfirming] = useState<Pending | null>(null);
  const { pending, run } = useConsoleAction();

  function applyFilter(name: 'person' | 'client', value: string) {
    const params = new URLSearchParams();
    const next = { person: filter.personId ?? '', client: filter.clientId ?? '', [name]: value };
    if (next.person) params.set('person', next.person);
    if (next.client) params.set('client', next.client);
    router.push(`?${params.toString()}`);
  }

  function confirm() {
    const target = confirming;
    if (!target) return;
    const settled = () => setConfirming(null);
    if (target.kind === 'grant') {
      run(() => revokeGrantAction(org, { grantId: target.row.grantId }), {
        settled,
        done: () => {
          setRows((current) => current.filter((row) => row.grantId !== target.row.grantId));
          return `${target.row.clientName} was disconnected for ${target.row.personName}.`;
        },
      });
    } else {
      run(() => revokeClientAction(org, { clientId: target.clientId }), {
        settled,
        done: (revoked) => {
          setRows((current) => current.filter((row) => row.clientId !== target.clientId));
          return `Revoked ${revoked} connection${revoked === 1 ? '' : 's'} of ${target.name}.`;
        },
      });
    }
  }

  const selectedClient = filter.clientId ? facets.clients.find((client) => client.clientId === filter.clientId) : undefined;
  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <div className="flex flex-col gap-1">
          <label htmlFor="filter-person" className="text-sm font-medium">
            Person
          </label>
          <select id="filter-person" className={selectClass} value={filter.personId ?? ''} onChange={(event) => applyFilter('person', event.target.value)}>
            <option value="">Everyone</option>
            {facets.people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.name} ({person.email})
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="filter-client" className="text-sm font-medium">
            App
          </label>
          <select id="filter-client" className={selectClass} value={filter.clientId ?? ''} onChange={(event) => applyFilter('client', event.target.value)}>
            <option value="">Every app</option>
            {facets.clients.map((client) => (
              <option key={client.clientId} value={client.clientId}>
                {client.name}
              </option>
            ))}
          </select>
        </div>
        {selectedClient && rows.length > 0 ? (
          <button
            type="button"
            className={buttonClass('danger-outline')}
            onClick={() =>
              setConfirming({ kind: 'client', clientId: selectedClient.clientId, name: selectedClient.name, count: rows.filter((row) => row.clientId === selectedClient.clientId).length })
            }
          >
            Revoke all of {selectedClient.name}
          </button>
        ) : null}
      </div>
      {rows.length === 0 ? (
        <EmptyState>No connected apps{filter.personId || filter.clientId ? ' match this filter' : ' in this organization'}.</EmptyState>
      ) : (
        <DataTable label="Connected apps in the organization" head={['App', 'Person', 'Can', 'Approved', 'Last used', '']}>
          {rows.map((row) => (
            <tr key={row.grantId}>
              <td className="px-3 py-2">
                <span className="font-medium">{row.clientName}</span> {row.unverified ? <Badge tone="warn">Unverified</Badge> : null}
              </td>
              <td className="px-3 py-2">
                {row.personName}
                <span className="block text-xs text-slate-500">{row.personEmail}</span>
              </td>
              <td className="px-3 py-2">{row.scopes.map((scope) => ownValue(MCP_SCOPES, scope) ?? scope).join('; ')}</td>
              <td className="px-3 py-2 whitespace-nowrap" title={exactTime(row.approvedAt)}>
                {relativeTime(row.approvedAt)}
              </td>
              <td className="px-3 py-2 whitespace-nowrap">{row.lastUsedAt ? relativeTime(row.lastUsedAt) : 'not yet'}</td>
              <td className="px-3 py-2 text-right">
                <button type="button" className={buttonClass('danger-outline', 'sm')} onClick={() => setConfirming({ kind: 'grant', row })}>
                  Revoke
                  <span className="sr-only">
                    {' '}
                    {row.clientName} for {row.personName}
                  </span>
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={confirming !== null}
        title={confirming?.kind === 'client' ? `Revoke every connection of ${confirming.name}?` : `Revoke ${confirming?.kind === 'grant' ? confirming.row.clientName : ''}?`}
        confirmLabel="Revoke"
        pendingLabel="Revoking…"
        pending={pending}
        onConfirm={confirm}
        onCancel={() => setConfirming(null)}
      >
        {confirming?.kind === 'client' ? (
          <p>
            {confirming.count} connection{confirming.count === 1 ? '' : 's'} of {confirming.name} in this organization will stop working at once. People can connect it again unless you block it on the
            Clients page.
          </p>
        ) : confirming?.kind === 'grant' ? (
          <p>
            {confirming.row.clientName} will lose access for {confirming.row.personName} at once. Its next request is refused.
          </p>
        ) : null}
      </ConfirmDialog>
    </div>
  );
}
