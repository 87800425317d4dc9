import type { Metadata } from 'next';
import Link from 'next/link';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { listConnectors } from '@/lib/connectors/connectors';
import { circuitState } from '@/lib/connectors/forward';
import { Badge, EmptyState, linkClass, PageHeading, primaryButton } from '../../components';
import { instancePage } from '../../page-access';
import { CircuitBadge, CredentialKind, HeldTools, OfferedTo } from './connector-facts';

export const metadata: Metadata = { title: 'Connectors · Instance admin' };

export default async function InstanceConnectorsPage() {
  await instancePage('/connectors');
  const connectors = await listConnectors();
  return (
    <div className="space-y-6">
      <PageHeading
        title="Connectors"
        actions={
          <Link href="/admin/instance/connectors/new" className={primaryButton}>
            Add a connector
          </Link>
        }
      >
        MCP servers of this installation behind /mcp. Offer one to organizations; their admins switch it on. The circuit shown is this instance’s own view: each instance counts its own failures.
      </PageHeading>
      {connectors.length === 0 ? (
        <EmptyState>No connector yet. Add one: its tools are read from the server, pinned, and offered to nobody until you choose.</EmptyState>
      ) : (
        <ul className="space-y-4" aria-label="Connectors">
          {connectors.map((connector) => {
            const active = connector.tools.filter((tool) => tool.status === 'active').length;
            const held = connector.tools.length - active;
            const headingId = `connector-${connector.slug}`;
            return (
              <li key={connector.slug}>
                <article aria-labelledby={headingId} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                  <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
                    <div className="min-w-0 space-y-1">
                      <h2 id={headingId} className="text-lg font-semibold break-words">
                        <Link href={`/admin/instance/connectors/${connector.slug}`} className={linkClass}>
                          {connector.name}
                        </Link>{' '}
                        <code className="ml-1 text-sm font-normal break-all text-slate-500">{connector.slug}</code>
                      </h2>
                      <p className="font-mono text-xs break-all text-slate-600">{connector.url}</p>
                    </div>
                    <p className="flex flex-wrap gap-2">
                      {connector.status === 'active' ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Disabled</Badge>}
                      <CircuitBadge state={circuitState(connector)} />
                    </p>
                  </div>
                  <HeldTools slug={connector.slug} held={held} />
                  <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
                    <Fact term="Tools">
                      {active} active{held ? `, ${held} held` : ''} ·{' '}
                      <Link href={`/admin/instance/connectors/${connector.slug}/tools`} className={linkClass}>
                        Review tools
                      </Link>
                    </Fact>
                    <Fact term="Credential">
                      <CredentialKind connector={connector} />
                    </Fact>
                    <Fact term="Offered to">
                      <OfferedTo connector={connector} />
                    </Fact>
                    <Fact term="On for">{connector.orgs.length ? connector.orgs.join(', ') : 'no organization'}</Fact>
                    <Fact term="Last refresh">{connector.lastRefreshedAt ? <span title={exactTime(connector.lastRefreshedAt)}>{relativeTime(connector.lastRefreshedAt)}</span> : 'never'}</Fact>
                    <Fact term="Last refresh error">{connector.lastRefreshError ? <span className="break-words text-red-800">{connector.lastRefreshError}</span> : 'none'}</Fact>
                  </dl>
                  <p className="text-sm">
                    <Link href={`/admin/instance/connectors/${connector.slug}`} className={linkClass}>
                      Settings of {connector.name}
                    </Link>
                  </p>
                </article>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="font-medium text-slate-700">{term}</dt>
      <dd className="break-words text-slate-900">{children}</dd>
    </div>
  );
}
