'use client';

import Link, { useLinkStatus } from 'next/link';
import { usePathname } from 'next/navigation';

/** A section link; `count` is a number shown beside it (pending access requests next to Clients), with its words for screen readers. */
export type NavItem = { href: string; label: string; count?: { value: number; label: string } };

// There is no route-level loading boundary in the console on purpose: a boundary would start streaming
// before the page's own checks, and a refused page would then answer 200 instead of 404. The link being
// followed shows that it is loading instead.
function PendingMark() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span role="status" className="ml-2 inline-block h-2 w-2 animate-pulse rounded-full bg-brand align-middle">
      <span className="sr-only">Loading…</span>
    </span>
  ) : null;
}

/** The console's sections; scrolls sideways on a phone instead of wrapping into a wall of links. */
export function AdminNav({ base, items }: { base: string; items: NavItem[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin console" className="-mx-4 overflow-x-auto border-b border-slate-200 px-4 sm:mx-0 sm:px-0">
      <ul className="flex min-w-max gap-1">
        {items.map((item) => {
          const href = `${base}${item.href}`;
          const active = item.href === '' ? pathname === base : pathname === href || pathname.startsWith(`${href}/`);
          return (
            <li key={item.href}>
              <Link
                href={href}
                aria-current={active ? 'page' : undefined}
                className={`block rounded-t px-3 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand ${
                  active ? 'border-b-2 border-brand text-brand' : 'text-slate-600 hover:text-slate-900'
                }`}
              >
                {item.label}
                {item.count ? (
                  <span data-testid="nav-count" className="ml-1.5 rounded-full bg-brand px-1.5 py-0.5 text-xs font-semibold text-white">
                    <span aria-hidden="true">{item.count.value}</span>
                    <span className="sr-only">{`, ${item.count.label}`}</span>
                  </span>
                ) : null}
                <PendingMark />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
