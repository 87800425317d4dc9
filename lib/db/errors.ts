// Telling "the database is unreachable right now" apart from every other failure, whichever layer threw
// it: pg (socket errors, pool timeouts, SQLSTATE classes 08 and 57P), Prisma's driver adapter (error
// kinds) or Prisma itself (P1001…). Callers answer 503 with Retry-After for these — the client may
// simply try again — and 500 for the rest.

/**
 * Socket-level failures: nothing reached the database or the connection broke. Only as a socket
 * operation reports them — with the syscall and errno, as @prisma/adapter-pg tells them apart too: Node
 * gives a request whose client went away mid-body the same code (ECONNRESET, "aborted") without either.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** Prisma's driver-adapter error kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TlsConnectionError']);
/** Prisma's own codes: can't reach, timed out, server closed the connection, pool timeout, no transaction slot. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** SQLSTATE: connection exceptions (08…), shutdown or not accepting connections (57P01–57P03), too many connections. */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** What pg and pg-pool say when the connection went away or never came. */
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|Unable to start a transaction in the given time|Can't reach database server/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  // Each layer wraps the one below: follow causes (and Prisma's driverAdapterError) a few levels down.
  for (let depth = 0; depth < 6 && current && typeof current === 'object' && !seen.has(current); depth++) {
    seen.add(current);
    const candidate = current as { code?: unknown; syscall?: unknown; errno?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    // An abort (the client's request body, a request.signal) is no outage, whatever it wraps.
    if ((current as Error).name === 'AbortError') return false;
    if (typeof candidate.code === 'string' && typeof candidate.syscall === 'string' && typeof candidate.errno === 'number' && SOCKET_CODES.has(candidate.code)) return true;
    if (typeof candidate.code === 'string' && (PRISMA_CODES.has(candidate.code) || SQLSTATE.test(candidate.code))) return true;
    if (typeof candidate.kind === 'string' && ADAPTER_KINDS.has(candidate.kind)) return true;
    if (typeof candidate.message === 'string' && MESSAGES.test(candidate.message)) return true;
    if ((current as Error).name === 'PrismaClientInitializationError') return true;
    current = candidate.meta?.driverAdapterError ?? candidate.cause;
  }
  return false;
}

/** Seconds a client should wait before retrying while the database is unreachable. */
export const RETRY_AFTER_SECONDS = 5;
