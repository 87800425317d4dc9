import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { ToastProvider } from './components/toast';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Gatehouse', template: '%s · Gatehouse' },
  description: 'Sign in and decide which apps may act for you.',
  icons: { icon: { url: '/favicon.svg', type: 'image/svg+xml' } },
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Rendered per request, every page (the not-found page too): each response's scripts carry that
  // response's nonce (proxy.ts), which a page built ahead of time could not know.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen">
        <a href="#content" className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow">
          Skip to content
        </a>
        <header className="border-b border-slate-200 bg-white">
          <div className="mx-auto flex max-w-6xl items-center gap-2 px-4 py-4 sm:px-6">
            <img src="/logo.svg" alt="" width={12} height={12} className="h-3 w-3" />
            <a href="/" className="font-semibold tracking-tight focus:outline-none focus-visible:ring-2 focus-visible:ring-brand">
              Gatehouse
            </a>
          </div>
        </header>
        <ToastProvider>
          <main id="content" className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-10">
            {children}
          </main>
        </ToastProvider>
      </body>
    </html>
  );
}
