import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { instanceOrgs } from '@/lib/admin/instance-directory';
import { connectorSummary } from '@/lib/connectors/connectors';
import { CONNECTOR_SLUG } from '@/lib/connectors/definitions';
import { circuitState } from '@/lib/connectors/forward';
import { Badge, linkClass, PageHeading } from '../../../components';
import { instancePage } from '../../../page-access';
import { CircuitBadge, HeldTools } from '../connector-facts';
import { DeleteConnector, OffersForm, RefreshButton, StatusControl } from './connector-controls';
import { CredentialForm, EditConnectorForm } from './connector-settings';

export const metadata: Metadata = { title: 'Connector settings · Instance admin' };

export default async function ConnectorSettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  await instancePage(`/connectors/${encodeURIComponent(slug)}`);
  const connector = CONNECTOR_SLUG.test(slug) ? await connectorSummary(slug) : null;
  if (!connector) notFound();
  const orgs = (await instanceOrgs()).map((org) => ({ slug: org.slug, name: org.name }));
  const held = connector.tools.filter((tool) => tool.status !== 'active').length;
  return (
    <div className="space-y-6">
      <PageHeading title={connector.name}>
        <code className="break-all">{connector.slug}</code> ·{' '}
        <Link href="/admin/instance/connectors" className={linkClass}>
          All connectors
        </Link>{' '}
        ·{' '}
        <Link href={`/admin/instance/connectors/${connector.slug}/tools`} className={linkClass}>
          Review its tools
        </Link>
      </PageHeading>
      <p className="flex flex-wrap gap-2">
        {connector.status === 'active' ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Disabled</Badge>}
        <CircuitBadge state={circuitState(connector)} />
        <Badge>{connector.tools.length === 1 ? '1 tool' : `${connector.tools.length} tools`}</Badge>
        <span className="text-sm text-slate-600">
          Last refresh: {connector.lastRefreshedAt ? <span title={exactTime(connector.lastRefreshedAt)}>{relativeTime(connector.lastRefreshedAt)}</span> : 'never'}
        </span>
      </p>
      <HeldTools slug={connector.slug} held={held} />
      {connector.lastRefreshError ? <p className="rounded bg-red-50 px-3 py-2 text-sm break-words text-red-800">Last refresh failed: {connector.lastRefreshError}</p> : null}
      <EditConnectorForm connector={{ slug: connector.slug, name: connector.name, description: connector.description, url: connector.url, timeoutSeconds: connector.timeoutMs / 1000 }} />
      <CredentialForm
        slug={connector.slug}
        current={{
          kind: connector.credentialKind,
          headerNames: connector.credentialHeaderNames,
          clientId: connector.clientCredentials?.clientId ?? null,
          tokenUrl: connector.clientCredentials?.tokenUrl ?? null,
        }}
      />
      <RefreshButton slug={connector.slug} />
      <StatusControl slug={connector.slug} name={connector.name} active={connector.status === 'active'} />
      <OffersForm slug={connector.slug} all={connector.offeredToAll} offeredTo={connector.offeredTo} orgs={orgs} />
      <DeleteConnector slug={connector.slug} name={connector.name} />
    </div>
  );
}
