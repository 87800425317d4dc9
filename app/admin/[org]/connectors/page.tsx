import type { Metadata } from 'next';
import { offeredConnectors } from '@/lib/connectors/org-view';
import { EmptyState, PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { ConnectorCards } from './connector-cards';

export const metadata: Metadata = { title: 'Connectors · Admin' };

export default async function OrgConnectorsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/connectors', 'apps:manage');
  const connectors = await offeredConnectors(admin.org.id);
  return (
    <div className="space-y-6">
      <PageHeading title="Connectors">
        MCP servers an instance admin set up and offered to {admin.org.name}. Switch one on and its tools join every app&apos;s tool list in {admin.org.name}, beside Gatehouse&apos;s own, through the
        same checks of scope and role.
      </PageHeading>
      {connectors.length ? (
        <ConnectorCards org={{ slug: admin.org.slug, name: admin.org.name }} connectors={connectors} />
      ) : (
        <EmptyState>
          No connector is offered to {admin.org.name} yet. Connectors are added and offered to organizations by an instance admin of this Gatehouse; ask one to offer the MCP server you need.
        </EmptyState>
      )}
    </div>
  );
}
