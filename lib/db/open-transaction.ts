// Which database transaction the current code runs in (see the rule in transaction.ts). Apart from
// transaction.ts so that code that reads from the network can check it without loading the database
// client.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Open<Tx = unknown> = { tx: Tx; open: boolean };

// On globalThis: Next.js evaluates this module once for route handlers and once more for pages and
// server actions, and a transaction opened by one copy must be seen by storage code built by the other
// (the provider may be built by either, see lib/oauth/provider.ts).
const holder = globalThis as unknown as { gatehouseTransaction?: AsyncLocalStorage<Open> };
export const currentTransaction = (holder.gatehouseTransaction ??= new AsyncLocalStorage<Open>());

/** The transaction the caller runs in, while it is still open (work it started may outlive it). */
export function openTransaction<Tx>(): Open<Tx> | undefined {
  const store = currentTransaction.getStore();
  return store?.open ? (store as Open<Tx>) : undefined;
}

export class NetworkReadInTransactionError extends Error {
  constructor(what: string) {
    super(`${what} while a database transaction is open: read from the network first, then open the transaction`);
    this.name = 'NetworkReadInTransactionError';
  }
}

/** Throws when called inside an open transaction. Every network read calls it first (transaction.ts). */
export function assertNoTransaction(what: string): void {
  if (openTransaction()) throw new NetworkReadInTransactionError(what);
}
