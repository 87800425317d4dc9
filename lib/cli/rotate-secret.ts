// `npm run secret:rotate`: a new AUTH_SECRET. The stored signing and cookie keys are re-sealed with the
// new secret in one transaction (they stay the same keys: tokens, the JWKS and sessions are not touched
// by this step). With the embedded database, whose secret Gatehouse generated itself, the new one is
// written to DATA_DIR/auth-secret; otherwise set AUTH_SECRET to it on every instance and restart them.
// Signing people in also uses the secret: after the restart everyone signs in again.
//
//   NEW_AUTH_SECRET=<at least 32 characters> npm run secret:rotate
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env, MIN_SECRET_LENGTH } from '@/lib/env';
import { resealConnectorCredentials } from '@/lib/connectors/credentials';
import { inTransaction } from '@/lib/db/transaction';
import { resealKeys } from '@/lib/oauth/keys';
import { runCli, UsageError } from './run';

runCli(async () => {
  const config = env();
  const next = process.env.NEW_AUTH_SECRET?.trim() ?? '';
  if (next.length < MIN_SECRET_LENGTH) throw new UsageError(`Set NEW_AUTH_SECRET to the new secret (at least ${MIN_SECRET_LENGTH} characters).`);
  if (next === config.authSecret) throw new UsageError('NEW_AUTH_SECRET is the current AUTH_SECRET.');
  await migrate(config.database, database().pglite);
  // One transaction: the keys and the connectors' credentials move to the new secret together, or neither does.
  const count = await inTransaction(async () => {
    const keys = await resealKeys(config.authSecret, next);
    await resealConnectorCredentials(config.authSecret, next);
    return keys;
  });
  await closeDatabase();
  if (config.database.kind === 'embedded' && !process.env.AUTH_SECRET) {
    writeFileSync(join(config.dataDir, 'auth-secret'), `${next}\n`, { mode: 0o600 });
    console.log(`Re-sealed ${count} keys; the new secret is in ${join(config.dataDir, 'auth-secret')}. Start Gatehouse again.`);
  } else {
    console.log(`Re-sealed ${count} keys. Set AUTH_SECRET to the new secret on every instance and restart them; people sign in again.`);
  }
});
