// What happens once per server process before the first request: configuration, database, demo data.
import { mcpUrl, reachNote } from '@/lib/connect/clients';
import { ConfigError, DEFAULT_DEMO_PASSWORD, env, isLoopbackHost } from '@/lib/env';
import { assignMissingApps, markDocumentApps } from '@/lib/apps/apps';
import { moveClientDecisions } from '@/lib/apps/decisions';
import { startConnectorRefresher } from '@/lib/connectors/refresher';
import { database } from '@/lib/db/client';
import { EmbeddedDatabaseLockedError } from '@/lib/db/embedded';
import { migrate, MigrationError } from '@/lib/db/migrate';
import { installPeerAddressStamp } from '@/lib/http/client-address';
import { startSweeper } from '@/lib/oauth/sweeper';
import { prepareGrantLimiter } from '@/lib/rate-limit/grant-limiter';
import { installShutdown } from './shutdown';
import { DEMO_PEOPLE, DemoSeedRefusedError, seedDemoData } from '@/lib/people/demo';

export async function startGatehouse(): Promise<void> {
  try {
    const config = env();
    installPeerAddressStamp();
    const { kind, prisma, pglite } = database();
    const migrations = await migrate(config.database, pglite);
    const where = config.database.kind === 'embedded' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL';
    log(`database: ${where}; ${migrations.applied.length} migration(s) applied, ${migrations.alreadyApplied} already there`);
    if (kind === 'embedded') {
      const reachableFromNetwork = !isLoopbackHost(config.host) || !isLoopbackHost(new URL(config.publicUrl).hostname);
      try {
        const outcome = await seedDemoData(prisma, { password: config.demoPassword, databaseKind: kind, reachableFromNetwork });
        if (outcome.seeded) log('demo data created');
      } catch (error) {
        if (!(error instanceof DemoSeedRefusedError)) throw error;
        log(`demo data not created. ${error.message}`);
      }
      if (await prisma.person.findFirst({ where: { email: DEMO_PEOPLE[0].email } })) {
        // The default is public anyway; a password of the operator's own is not printed.
        const password = config.demoPassword === DEFAULT_DEMO_PASSWORD ? DEFAULT_DEMO_PASSWORD : '$DEMO_PASSWORD';
        log(`demo sign-ins (password ${password}): ${DEMO_PEOPLE.map((person) => person.email).join(', ')}`);
      }
    }
    // Clients registered before apps existed (or whose app was removed) get theirs.
    const assigned = await assignMissingApps();
    if (assigned) log(`${assigned} client registration(s) grouped into apps`);
    await markDocumentApps();
    // Decisions made on single registrations before apps move onto their apps (block wins).
    const moved = await moveClientDecisions();
    if (moved) log(`${moved} decision(s) on client registrations moved onto their apps`);
    await prepareGrantLimiter();
    startSweeper(config.sweepIntervalMs);
    startConnectorRefresher(config.connectorRefreshMs);
    installShutdown();
    log(`ready at ${config.publicUrl}  (sign in at ${config.publicUrl}/login)`);
    // The one address a person gives an MCP client (the home page shows the same, per client).
    log(`connect MCP clients to ${mcpUrl(config.publicUrl)}`);
    const note = reachNote(config.publicUrl);
    if (note) log(note);
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof MigrationError || error instanceof EmbeddedDatabaseLockedError;
    console.error(`gatehouse: cannot start. ${known ? (error as Error).message : ''}`);
    if (!known) console.error(error);
    process.exit(1);
  }
}

function log(message: string): void {
  console.log(`gatehouse: ${message}`);
}
