// Runs a command-line entry point: known failures print their message alone, others their stack.
import { ConfigError } from '@/lib/env';
import { EmbeddedDatabaseLockedError } from '@/lib/db/embedded';
import { MigrationError } from '@/lib/db/migrate';
import { DemoSeedRefusedError } from '@/lib/people/demo';

export class UsageError extends Error {}

export function runCli(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      const known =
        error instanceof UsageError || error instanceof ConfigError || error instanceof MigrationError || error instanceof EmbeddedDatabaseLockedError || error instanceof DemoSeedRefusedError;
      console.error(known ? `Error: ${(error as Error).message}` : error);
      process.exit(1);
    },
  );
}
