// Reading the database behind a running test server. PostgreSQL is read directly; the embedded database
// belongs to the server's process, so the server is stopped, the folder read, and the server started
// again on the same port with the same data.
import { PGlite } from '@electric-sql/pglite';
import { join } from 'node:path';
import pg from 'pg';
import { startServer, type RunningServer } from './server';

export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

export async function inspectDatabase<T>(server: RunningServer, work: (query: Query) => Promise<T>): Promise<{ result: T; server: RunningServer }> {
  if (server.postgres) {
    const client = new pg.Client({ connectionString: server.postgres.url });
    await client.connect();
    try {
      const result = await work(async (sql, params) => (await client.query(sql, params)).rows);
      return { result, server };
    } finally {
      await client.end();
    }
  }
  await server.halt();
  const pglite = new PGlite(join(server.dataDir, 'pgdata'));
  let result: T;
  try {
    result = await work(async <R>(sql: string, params?: unknown[]) => (await pglite.query<R>(sql, params)).rows);
  } finally {
    await pglite.close();
  }
  // The restarted process takes the place of the halted one in the caller's own object, so that whoever
  // holds `server` (an afterAll's stop above all) controls it: a caller that ignored the returned server
  // used to leave it running after its tests, one more server on the machine for the rest of the run.
  return { result, server: Object.assign(server, await startServer(server.restartOptions)) };
}
