import type { Metadata } from 'next';
import { toolSettings } from '@/lib/admin/org-policy';
import { PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { ToolSwitches } from './tool-switches';

export const metadata: Metadata = { title: 'Tools · Admin' };

export default async function OrgToolsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/tools', 'apps:manage');
  return (
    <div className="space-y-6">
      <PageHeading title="Tools">
        Switch a tool off and it disappears from every app&apos;s tool list in {admin.org.name} on its next request; calling it anyway (directly or through execute_tool) is refused.
      </PageHeading>
      <ToolSwitches org={admin.org.slug} tools={await toolSettings(admin.org.id)} />
    </div>
  );
}
