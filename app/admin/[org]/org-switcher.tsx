'use client';

import { useRouter } from 'next/navigation';
import type { AdministeredOrg } from '@/lib/admin/access';

/** Shown when someone administers several orgs (or the installation too). */
export function OrgSwitcher({ current, orgs, instance }: { current: string; orgs: AdministeredOrg[]; instance: boolean }) {
  const router = useRouter();
  if (orgs.length < 2 && !instance) return null;
  return (
    <div className="flex items-center gap-2">
      <label htmlFor="org-switcher" className="text-sm font-medium text-slate-700">
        Organization
      </label>
      <select
        id="org-switcher"
        value={current}
        onChange={(event) => router.push(event.target.value === '' ? '/admin/instance' : `/admin/${event.target.value}`)}
        className="rounded border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-brand"
      >
        {orgs.map((org) => (
          <option key={org.slug} value={org.slug}>
            {org.name}
          </option>
        ))}
        {instance ? <option value="">This installation (instance admin)</option> : null}
      </select>
    </div>
  );
}
