// The database transaction the current code runs in, if any. Code that does not receive a transaction
// client explicitly — oidc-provider's storage adapter, called from inside the provider — uses the one
// established by `inTransaction`, so that a provider write and Gatehouse's own writes commit together.
// (The embedded database has a single connection: a query outside the open transaction would wait on
// it forever.)
import { AsyncLocalStorage } from 'node:async_hooks';
import { db } from './client';
import type { Prisma } from '@/lib/generated/prisma/client';

export type Tx = Prisma.TransactionClient;

// On globalThis: Next.js evaluates this module once for route handlers and once more for pages and
// server actions, and a transaction opened by one copy must be seen by storage code built by the other
// (the provider may be built by either, see lib/oauth/provider.ts).
const holder = globalThis as unknown as { gatehouseTransaction?: AsyncLocalStorage<Tx> };
const current = (holder.gatehouseTransaction ??= new AsyncLocalStorage<Tx>());

/** Runs `work` in one transaction; provider storage used inside it joins the transaction. */
export function inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  const outer = current.getStore();
  if (outer) return work(outer); // already inside one: join it
  return db().$transaction((tx) => current.run(tx, () => work(tx)), { timeout: 15_000, maxWait: 15_000 });
}

/** The open transaction's client, or the plain client. */
export function queries(): Tx {
  return current.getStore() ?? db();
}
