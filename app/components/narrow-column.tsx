import type { ReactNode } from 'react';

/** Forms and lists for one person read best in a narrow column; the admin console uses the full width. */
export function NarrowColumn({ children }: { children: ReactNode }) {
  return <div className="mx-auto max-w-3xl">{children}</div>;
}
