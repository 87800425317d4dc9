// The apps of the installation an org admin may approve ahead of time (docs/protocol.md §7): under
// "approved apps only" an app nobody in the org has connected yet must be findable to be approved. Only
// self-registered (redirects, loopback) and metadata-document apps are listed, the ones decideApp lets any
// org decide on; never an app an admin registered by hand, which belongs to its own org.
//
// Nothing here says anything of another organization: no org name, no per-org count or decision. What is
// shown of an app is the app's own row — its name, the evidence its registrations were grouped by, and
// how many registrations of it the installation holds and when one was last seen. Those two are over the
// whole installation on purpose: they say how widely a product is used here, not by whom.
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { type NumberedPage, pageAmong, searchAny } from '@/lib/admin/numbered-pages';
import { type AppKind, describeEvidence } from './apps';
import { type OrgAppStanding, orgAppStandings } from './decisions';

export const DIRECTORY_APPS_PER_PAGE = 25;

/** The kinds an org may decide on whoever registered them (decisions.ts decidableApp). */
const LISTED_KINDS: AppKind[] = ['redirects', 'loopback', 'metadata_document'];

export type DirectoryApp = {
  appId: string;
  name: string;
  kind: AppKind;
  evidence: string;
  /** Over the whole installation (see above). */
  registrationCount: number;
  lastSeenAt: Date;
  standing: OrgAppStanding | null;
};

/**
 * One page of the installation's listed apps, most recently seen first, optionally only those whose name
 * or evidence (the key carries the hosts, schemes, name, software_id and document URL it was made of)
 * contains `query`. An app is listed while some registration points to it, or when this org decided on it
 * (approved ahead by URL, before anyone connected): an app another org approved ahead and nobody
 * registered would tell of that org.
 */
export async function instanceAppsForOrg(orgId: string, query: string, page: number): Promise<NumberedPage<DirectoryApp>> {
  const where: Prisma.AppWhereInput = {
    AND: [{ kind: { in: LISTED_KINDS } }, { OR: [{ clients: { some: {} } }, { orgDecisions: { some: { orgId } } }] }, searchAny(query, ['displayName', 'key'])],
  };
  const total = await db().app.count({ where });
  const { page: current, pages, skip, take } = pageAmong(total, page, DIRECTORY_APPS_PER_PAGE);
  const apps = await db().app.findMany({
    where,
    select: { id: true, kind: true, displayName: true, evidence: true, registrationCount: true, lastSeenAt: true },
    orderBy: [{ lastSeenAt: 'desc' }, { id: 'asc' }],
    skip,
    take,
  });
  const standings = await orgAppStandings(
    orgId,
    apps.map((app) => app.id),
  );
  const rows = apps.map(
    (app): DirectoryApp => ({
      appId: app.id,
      name: app.displayName,
      kind: app.kind as AppKind,
      evidence: describeEvidence(app.evidence),
      registrationCount: app.registrationCount,
      lastSeenAt: app.lastSeenAt,
      standing: standings.get(app.id) ?? null,
    }),
  );
  return { rows, total, page: current, pages };
}
