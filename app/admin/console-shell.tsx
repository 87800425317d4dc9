// The frame of every console page — whose console it is, the switcher, the sections — for an org and for
// the installation alike.
import type { ReactNode } from 'react';
import type { AdministeredOrg } from '@/lib/admin/access';
import { AdminNav, type NavItem } from './[org]/admin-nav';
import { OrgSwitcher } from './[org]/org-switcher';

export function ConsoleShell({
  title,
  subtitle,
  base,
  items,
  switcher,
  children,
}: {
  title: string;
  subtitle: ReactNode;
  base: string;
  items: NavItem[];
  switcher: { current: string; orgs: AdministeredOrg[]; instance: boolean };
  children: ReactNode;
}) {
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <p className="text-sm text-slate-600">
            <a href="/" className="text-brand underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
              ← Home
            </a>
          </p>
          <p className="mt-1 text-xl font-semibold">{title}</p>
          <p className="text-sm text-slate-600">{subtitle}</p>
        </div>
        <OrgSwitcher {...switcher} />
      </div>
      <AdminNav base={base} items={items} />
      <div>{children}</div>
    </div>
  );
}
