'use client';

import { usePathname, useRouter } from 'next/navigation';
import type { FormEvent, ReactNode } from 'react';
import { primaryButton, secondaryButton } from '../components';

/**
 * A log's filter: a plain GET form, so that it works without JavaScript and every filtered view is a
 * link. With JavaScript, empty fields are left out of the address.
 */
export function FilterForm({ label, clearHref, children }: { label: string; clearHref: string; children: ReactNode }) {
  const router = useRouter();
  const pathname = usePathname();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(event.currentTarget)) {
      if (typeof value === 'string' && value.trim()) params.set(name, value.trim());
    }
    router.push(params.size ? `${pathname}?${params}` : pathname);
  }

  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for the browsers the console supports; role="search" says the same
    <form method="get" role="search" aria-label={label} onSubmit={submit} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">{children}</div>
      <div className="mt-3 flex gap-2">
        <button type="submit" className={primaryButton}>
          Apply filters
        </button>
        <a href={clearHref} className={secondaryButton}>
          Clear
        </a>
      </div>
    </form>
  );
}
