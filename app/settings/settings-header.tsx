import Link from 'next/link';
import type { ReactNode } from 'react';

export function SettingsHeader({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <p className="text-sm">
        <Link href="/" className="text-brand underline">
          ← Home
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-semibold">{title}</h1>
      <p className="text-slate-600">{children}</p>
    </div>
  );
}
