import type { ReactNode } from 'react';
import { administeredOrgs } from '@/lib/admin/access';
import { pendingCount } from '@/lib/apps/requests';
import { hasPermission } from '@/lib/auth/permissions';
import { orgLayout } from '../page-access';
import { ConsoleShell } from '../console-shell';
import type { NavItem } from './admin-nav';
import { SECTIONS, sectionOf } from './sections';

export const dynamic = 'force-dynamic';

export default async function OrgConsoleLayout({ children, params }: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const admin = await orgLayout(slug, (path) => sectionOf(path, slug)?.permission);
  const orgs = await administeredOrgs(admin.personId);
  // Read on every request: the count next to Clients is what waits for an answer now (lib/apps/requests.ts).
  const requests = hasPermission(admin, 'apps:manage') ? await pendingCount(admin.org.id) : 0;
  const items: NavItem[] = SECTIONS.filter((section) => hasPermission(admin, section.permission)).map((section) => ({
    href: section.path,
    label: section.label,
    ...(section.path === '/clients' && requests > 0 ? { count: { value: requests, label: `${requests} access request${requests === 1 ? '' : 's'} waiting` } } : {}),
  }));
  return (
    <ConsoleShell
      title={admin.org.name}
      subtitle={
        <>
          Admin console · you are {admin.role}
          {admin.org.planStatus !== 'active' ? <span className="ml-2 rounded bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800">Plan inactive</span> : null}
        </>
      }
      base={`/admin/${admin.org.slug}`}
      items={items}
      switcher={{ current: admin.org.slug, orgs, instance: admin.isInstanceAdmin }}
    >
      {children}
    </ConsoleShell>
  );
}
