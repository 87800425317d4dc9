import type { ReactNode } from 'react';
import { administeredOrgs } from '@/lib/admin/access';
import { hasPermission } from '@/lib/auth/permissions';
import { orgPage } from '../page-access';
import { AdminNav, type NavItem } from './admin-nav';
import { OrgSwitcher } from './org-switcher';

export const dynamic = 'force-dynamic';

export default async function OrgConsoleLayout({ children, params }: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const admin = await orgPage(slug, '');
  const orgs = await administeredOrgs(admin.personId);
  const can = (permission: Parameters<typeof hasPermission>[1]) => hasPermission(admin, permission);
  const items: NavItem[] = [
    { href: '', label: 'Overview', show: can('audit:read') },
    { href: '/connected-apps', label: 'Connected apps', show: can('apps:manage') },
    { href: '/clients', label: 'Clients', show: can('apps:manage') },
    { href: '/members', label: 'Members', show: can('members:manage') },
    { href: '/tools', label: 'Tools', show: can('apps:manage') },
    { href: '/plan', label: 'Plan', show: can('plan:manage') },
    { href: '/audit', label: 'Audit log', show: can('audit:read') },
    { href: '/calls', label: 'Call log', show: can('audit:read') },
  ].filter((item) => item.show);
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <p className="text-sm text-slate-600">
            <a href="/" className="text-brand underline">
              ← Home
            </a>
          </p>
          <p className="mt-1 text-xl font-semibold">{admin.org.name}</p>
          <p className="text-sm text-slate-600">
            Admin console · you are {admin.role}
            {admin.org.planStatus !== 'active' ? <span className="ml-2 rounded bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800">Plan inactive</span> : null}
          </p>
        </div>
        <OrgSwitcher current={admin.org.slug} orgs={orgs} instance={admin.isInstanceAdmin} />
      </div>
      <AdminNav base={`/admin/${admin.org.slug}`} items={items} />
      <div>{children}</div>
    </div>
  );
}
