// The embedded database: PGlite (PostgreSQL compiled to WebAssembly) in this process, persisted in a
// folder. One process owns a folder at a time; a lock file makes a second one fail with a clear message
// instead of corrupting the data.
import { PGlite } from '@electric-sql/pglite';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export class EmbeddedDatabaseLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by another Gatehouse process (pid ${pid}). ` +
        'Stop that process first, or point DATA_DIR at another folder, or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'EmbeddedDatabaseLockedError';
  }
}

/** Opens (creating if needed) the PGlite database in `dataDir`, holding its lock until the process exits. */
export function openEmbeddedDatabase(dataDir: string): PGlite {
  mkdirSync(dataDir, { recursive: true }); // PGlite does not create missing parent folders
  const lockFile = join(dirname(dataDir), `${basename(dataDir)}.lock`);
  acquireLock(lockFile, dataDir);
  return new PGlite(dataDir);
}

function basename(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() ?? 'pgdata';
}

function acquireLock(lockFile: string, dataDir: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      releaseOnExit(lockFile);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSafely(lockFile), 10);
      if (owner === process.pid) return;
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new EmbeddedDatabaseLockedError(dataDir, owner);
      }
      rmSync(lockFile, { force: true }); // left behind by a process that died: take it over
    }
  }
  throw new Error(`Could not take the lock ${lockFile}: another process keeps recreating it.`);
}

function readFileSafely(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseOnExit(lockFile: string): void {
  process.once('exit', () => {
    if (existsSync(lockFile) && readFileSafely(lockFile) === String(process.pid)) {
      rmSync(lockFile, { force: true });
    }
  });
}
