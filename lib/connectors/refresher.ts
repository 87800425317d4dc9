// The connectors' catalogs read again every CONNECTOR_REFRESH_SECONDS (docs/connectors.md), by one instance
// at a time: what pinning allows is applied, changed and new tools are held until approved, and a refresh
// that fails changes nothing but the connector's last error.
import { ON_SCHEDULE } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { startPeriodicJob } from '@/lib/server/periodic-job';
import { refreshConnector } from './catalog';

export const CONNECTOR_REFRESH_LOCK_KEY = 7_146_237_883_512_903;

/** Refreshes every active connector, one after another (an upstream's slowness is its own). */
export async function refreshAllConnectors(): Promise<string | null> {
  const connectors = await db().connector.findMany({ where: { status: 'active' }, select: { slug: true }, orderBy: { slug: 'asc' } });
  if (connectors.length === 0) return null;
  const lines: string[] = [];
  for (const { slug } of connectors) {
    const outcome = await refreshConnector(slug, ON_SCHEDULE).catch((error: unknown) => ({ slug, ok: false as const, error: (error as Error).message }));
    if (!outcome.ok) lines.push(`${slug}: refresh failed (${outcome.error})`);
    else if (outcome.held.length || outcome.removed.length || outcome.released.length) {
      lines.push(`${slug}: ${outcome.held.length} tool(s) held for approval, ${outcome.released.length} back as pinned, ${outcome.removed.length} removed`);
    }
  }
  return `refreshed ${connectors.length} connector catalog(s)${lines.length ? `; ${lines.join('; ')}` : ''}`;
}

export function startConnectorRefresher(intervalMs: number): void {
  // The first refresh waits a whole period: catalogs were read when their connectors were added.
  startPeriodicJob({ name: 'connector-refresher', lockKey: CONNECTOR_REFRESH_LOCK_KEY, intervalMs, firstRunMs: intervalMs, run: refreshAllConnectors, describe: 'the connector catalog refreshes' });
}
