// "Only one instance does this": a PostgreSQL session-level advisory lock, kept for as long as this
// instance keeps the job. Several instances sharing one database each ask on their own schedule; the
// first one gets the lock and keeps it, the others are told no until the holder stops — its connection
// closes (exit, crash, network loss) and PostgreSQL releases the lock, so another instance takes over at
// its next attempt. Holding it, rather than taking it for each run, is what makes a periodic job run
// once per period instead of once per instance per period: a run takes milliseconds, so a lock released
// after each run would let the next instance's timer run it again moments later.
//
// The lock lives on a connection of its own, never on the pool: a session lock on a pooled connection
// would travel with that connection to unrelated queries and could be released by none of them.
import pg from 'pg';

export class LeaderLock {
  private holding: pg.Client | null = null;

  constructor(
    private readonly connectionString: string,
    /** A 64-bit number unique to the job (a JavaScript safe integer). */
    private readonly key: number,
  ) {}

  /** Whether this instance holds the lock now: keeps it if held and still connected, else tries to take it. */
  async acquire(): Promise<boolean> {
    if (this.holding) {
      try {
        // A live session still holds its session lock; a dead one has already lost it.
        await this.holding.query('SELECT 1');
        return true;
      } catch {
        this.forget(this.holding);
      }
    }
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5_000 });
    // Without a listener, a dropped idle connection would be an uncaught 'error' and end the process.
    client.on('error', () => this.forget(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [this.key]);
      if (rows[0]?.held) {
        this.holding = client;
        return true;
      }
    } catch {
      // Database unreachable: not the leader this time; the next attempt tries again.
    }
    await client.end().catch(() => {});
    return false;
  }

  private forget(client: pg.Client): void {
    if (this.holding === client) this.holding = null;
    void client.end().catch(() => {});
  }
}
