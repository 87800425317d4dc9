import Link from 'next/link';

/** The pages of Clients: the apps and their decisions, the members' requests to approve one, and approving one ahead. */
export function ClientsTabs({ org, current, pending }: { org: string; current: 'apps' | 'requests' | 'approve'; pending: number }) {
  const base = `/admin/${encodeURIComponent(org)}/clients`;
  const tabs = [
    { key: 'apps', label: 'Apps', href: base },
    { key: 'requests', label: `Requests (${pending})`, href: `${base}/requests` },
    { key: 'approve', label: 'Approve ahead', href: `${base}/approve` },
  ] as const;
  return (
    <nav aria-label="Clients" className="flex gap-2 text-sm">
      {tabs.map((tab) => (
        <Link
          key={tab.key}
          href={tab.href}
          aria-current={tab.key === current ? 'page' : undefined}
          className={`rounded px-3 py-1.5 font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand ${
            tab.key === current ? 'bg-brand text-white' : 'border border-slate-300 bg-white text-slate-700 hover:bg-slate-100'
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
