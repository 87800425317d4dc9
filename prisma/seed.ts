// `npm run db:seed` (also `prisma db seed`): migrate, then add the demo organizations and people unless
// the database already has people. PostgreSQL needs DEMO_PASSWORD set to a password of your own.
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { DEMO_PEOPLE, seedDemoData } from '@/lib/people/demo';
import { runCli } from '@/lib/cli/run';

runCli(async () => {
  const config = env();
  const { kind, prisma, pglite } = database();
  await migrate(config.database, pglite);
  const outcome = await seedDemoData(prisma, { password: config.demoPassword, databaseKind: kind });
  console.log(outcome.seeded ? `Demo data created. Sign in as ${DEMO_PEOPLE.map((person) => person.email).join(', ')}.` : `Nothing seeded: ${outcome.reason}.`);
  await closeDatabase();
});
