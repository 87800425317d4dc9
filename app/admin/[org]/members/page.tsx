import type { Metadata } from 'next';
import { listMembers } from '@/lib/members/list';
import { PageHeading } from '../../components';
import { orgPage } from '../../page-access';
import { AddMemberForm } from './add-member-form';
import { MembersTable } from './members-table';

export const metadata: Metadata = { title: 'Members · Admin' };

export default async function MembersPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const admin = await orgPage(org, '/members', 'members:manage');
  const members = await listMembers(admin.org.id);
  return (
    <div className="space-y-6">
      <PageHeading title="Members">The people of {admin.org.name} and their roles. Changes apply to their apps&apos; very next request.</PageHeading>
      <AddMemberForm org={admin.org.slug} orgName={admin.org.name} canAddOwners={admin.role === 'owner'} />
      <MembersTable
        org={admin.org.slug}
        orgName={admin.org.name}
        you={{ personId: admin.personId, role: admin.role }}
        members={members.rows.map((member) => ({ ...member, lockedUntil: member.lockedUntil?.toISOString() ?? null, joinedAt: member.joinedAt.toISOString() }))}
      />
    </div>
  );
}
