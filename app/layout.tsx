import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Gatehouse', template: '%s · Gatehouse' },
  description: 'Sign in and decide which apps may act for you.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <header className="border-b border-slate-200 bg-white">
          <div className="mx-auto flex max-w-3xl items-center gap-2 px-6 py-4">
            <span aria-hidden className="inline-block h-3 w-3 rounded-sm bg-brand" />
            <span className="font-semibold tracking-tight">Gatehouse</span>
          </div>
        </header>
        <main className="mx-auto max-w-3xl px-6 py-10">{children}</main>
      </body>
    </html>
  );
}
