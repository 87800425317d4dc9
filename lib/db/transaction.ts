// The database transaction the current code runs in, if any. `db()` (lib/db/client.ts) joins the one
// established by `inTransaction`, so code that does not receive a transaction client explicitly —
// oidc-provider's storage adapter, called from inside the provider — writes in it too, and a provider
// write and Gatehouse's own writes commit together. (The embedded database has a single connection: a
// query outside the open transaction would wait on it forever — the access rule in client.ts.)
//
// THE RULE: nothing waits on the network while a transaction is open. A transaction holds a database
// connection — the embedded database's only one, or one of PostgreSQL's pool of 10 — for as long as it
// runs, so a request body still arriving, a fetch (a client metadata document), an SMTP send or a Redis
// call inside one lets a single slow peer stall every other request. Read and validate first, then open
// the transaction: request bodies are buffered before the OAuth handlers run (lib/http/body.ts
// `bufferRequest`), and metadata documents are fetched before the token and revocation transactions.
// Every network read in Gatehouse calls `assertNoTransaction` first, so a read that ever moves inside a
// transaction fails loudly (a 500 and a log line naming it) instead of silently holding the connection.
import { database, type Tx } from './client';
import { currentTransaction, openTransaction, type Open } from './open-transaction';

export { assertNoTransaction, NetworkReadInTransactionError, outsideTransaction } from './open-transaction';
export type { Tx } from './client';

/** Runs `work` in one transaction; provider storage used inside it joins the transaction. */
export function inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  const outer = openTransaction<Tx>();
  if (outer) return work(outer.tx); // already inside one: join it
  return database().prisma.$transaction(
    async (tx) => {
      const store: Open<Tx> = { tx, open: true };
      try {
        return await currentTransaction.run(store, () => work(tx));
      } finally {
        store.open = false;
      }
    },
    { timeout: 15_000, maxWait: 15_000 },
  );
}
