import type { ReactNode } from 'react';
import { administeredOrgs } from '@/lib/admin/access';
import type { NavItem } from '../[org]/admin-nav';
import { ConsoleShell } from '../console-shell';
import { instanceLayout } from '../page-access';

export const dynamic = 'force-dynamic';

const ITEMS: NavItem[] = [
  { href: '', label: 'Clients' },
  { href: '/organizations', label: 'Organizations' },
  { href: '/people', label: 'People' },
  { href: '/connectors', label: 'Connectors' },
  { href: '/keys', label: 'Keys' },
];

export default async function InstanceConsoleLayout({ children }: { children: ReactNode }) {
  const admin = await instanceLayout();
  const orgs = await administeredOrgs(admin.personId);
  return (
    <ConsoleShell
      title="This installation"
      subtitle="Instance admin console · every client, organization and person"
      base="/admin/instance"
      items={ITEMS}
      switcher={{ current: '', orgs, instance: true }}
    >
      {children}
    </ConsoleShell>
  );
}
