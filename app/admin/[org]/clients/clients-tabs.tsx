import Link from 'next/link';

/** The two pages of Clients: the apps and their decisions, and the members' requests to approve one. */
export function ClientsTabs({ org, current, pending }: { org: string; current: 'apps' | 'requests'; pending: number }) {
  const tabs = [
    { key: 'apps', label: 'Apps', href: `/admin/${org}/clients` },
    { key: 'requests', label: `Requests (${pending})`, href: `/admin/${org}/clients/requests` },
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
