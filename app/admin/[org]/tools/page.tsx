import type { Metadata } from 'next';
import Link from 'next/link';
import { toolSettings } from '@/lib/admin/org-policy';
import { linkClass, PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { ToolSwitches } from './tool-switches';

export const metadata: Metadata = { title: 'Tools · Admin' };

export default async function OrgToolsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/tools', 'apps:manage');
  const { builtIn, connectors } = await toolSettings(admin.org.id);
  return (
    <div className="space-y-6">
      <PageHeading title="Tools">
        Switch a tool off and it disappears from every app&apos;s tool list in {admin.org.name} on its next request; calling it anyway (directly or through execute_tool) is refused.
      </PageHeading>
      <section aria-labelledby="built-in-tools" className="space-y-3">
        <h2 id="built-in-tools" className="text-lg font-semibold">
          Gatehouse&apos;s tools
        </h2>
        <ToolSwitches org={admin.org.slug} label="Tools" tools={builtIn} />
      </section>
      {connectors.map((connector) => (
        <section key={connector.slug} id={`connector-${connector.slug}`} aria-labelledby={`connector-${connector.slug}-heading`} className="scroll-mt-4 space-y-3">
          <h2 id={`connector-${connector.slug}-heading`} className="text-lg font-semibold break-words">
            {connector.name} <code className="ml-1 text-sm font-normal text-slate-500">{connector.slug}</code>
          </h2>
          {connector.tools.length ? (
            <ToolSwitches org={admin.org.slug} label={`Tools of ${connector.name}`} tools={connector.tools} ofConnector />
          ) : (
            <p className="text-sm text-slate-600">This connector offers no tools at the moment.</p>
          )}
        </section>
      ))}
      <p className="text-sm text-slate-600">
        Connectors switched on for {admin.org.name} add their tools here;{' '}
        <Link href={`/admin/${admin.org.slug}/connectors`} className={linkClass}>
          see the connectors offered to it
        </Link>
        .
      </p>
    </div>
  );
}
