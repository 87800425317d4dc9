// `npm run db:migrate`: apply pending migrations and exit (the server also does this when it starts).
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { runCli } from './run';

runCli(async () => {
  const result = await migrate(env().database, database().pglite);
  console.log(result.applied.length ? `Applied ${result.applied.length} migration(s): ${result.applied.join(', ')}` : `Nothing to apply (${result.alreadyApplied} migration(s) already there).`);
  await closeDatabase();
});
