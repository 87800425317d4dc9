// Which database transaction the current code runs in (see the rule in transaction.ts). Apart from
// transaction.ts so that code that reads from the network can check it without loading the database
// client.
import { AsyncLocalStorage } from 'node:async_hooks';
import { processSingleton } from '@/lib/server/process-singleton';

export type Open<Tx = unknown> = { tx: Tx; open: boolean };

// One per process: Next.js evaluates this module once for route handlers and once more for pages and
// server actions, and a transaction opened by one copy must be seen by storage code built by the other
// (the provider may be built by either, see lib/oauth/provider.ts).
export const currentTransaction = processSingleton('transaction', () => new AsyncLocalStorage<Open>());

/** The transaction the caller runs in, while it is still open (work it started may outlive it). */
export function openTransaction<Tx>(): Open<Tx> | undefined {
  const store = currentTransaction.getStore();
  return store?.open ? (store as Open<Tx>) : undefined;
}

/**
 * Runs `start` outside any transaction: what it starts — a timer, an interval, a promise nobody awaits —
 * never joins the transaction of the code that called it, even while that transaction is still open
 * (AsyncLocalStorage would otherwise hand its store to every callback created inside it). For background
 * work only: on the embedded database a query started here waits until the open transaction ends, so
 * the transaction must not await it.
 */
export function outsideTransaction<T>(start: () => T): T {
  return currentTransaction.exit(start);
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
