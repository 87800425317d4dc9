import { db } from './client';

const TIMEOUT_MS = 2_000;

/** Whether the database answers a trivial query within two seconds. Never throws. */
export async function databaseReachable(): Promise<{ ok: true } | { ok: false; error: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db().$queryRaw`SELECT 1`,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS);
      }),
    ]);
    return { ok: true };
  } catch (error) {
    console.error('readyz: database unreachable', (error as Error).message);
    return { ok: false, error: 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}
