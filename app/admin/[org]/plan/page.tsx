import type { Metadata } from 'next';
import { PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { PlanForm } from './plan-form';

export const metadata: Metadata = { title: 'Plan · Admin' };

export default async function OrgPlanPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/plan', 'plan:manage');
  return (
    <div className="space-y-6">
      <PageHeading title="Plan">Only owners see this page.</PageHeading>
      <PlanForm org={admin.org.slug} orgName={admin.org.name} status={admin.org.planStatus} />
    </div>
  );
}
