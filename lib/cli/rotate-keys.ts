// `npm run keys:rotate`: new signing and cookie keys for every instance. The previous keys are retired:
// still published and still verifying until what they signed has expired. Restart the instances (one
// at a time is fine) so they load the new keys.
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { rotateKeys } from '@/lib/oauth/keys';
import { runCli, UsageError } from './run';

runCli(async () => {
  const config = env();
  if (config.signingKeys) throw new UsageError('The keys come from OAUTH_SIGNING_KEYS/OAUTH_COOKIE_KEYS: rotate them there.');
  await migrate(config.database, database().pglite);
  const ids = await rotateKeys();
  console.log(`New keys: ${ids.join(', ')}. Restart Gatehouse so that every instance signs with them.`);
  await closeDatabase();
});
