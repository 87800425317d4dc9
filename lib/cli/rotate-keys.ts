// `npm run keys:rotate`: new signing and cookie keys for every instance. The previous keys are retired:
// still published and still verifying until what they signed has expired. Running instances pick the
// new keys up within KEY_RELOAD_SECONDS; no restart is needed. (Instance admins can do the same from
// the console's Keys page.)
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { rotateKeys } from '@/lib/oauth/keys';
import { runCli, UsageError } from './run';

runCli(async () => {
  const config = env();
  if (config.signingKeys) throw new UsageError('The keys come from OAUTH_SIGNING_KEYS/OAUTH_COOKIE_KEYS: rotate them there.');
  await migrate(config.database, database().pglite);
  const ids = await rotateKeys({ actorPersonId: null, ip: null, via: 'cli' });
  console.log(`New keys: ${ids.join(', ')}. Running instances sign with them within ${config.keyReloadMs / 1000} s; no restart needed.`);
  await closeDatabase();
});
