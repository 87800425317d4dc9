// Decisions on apps (docs/protocol.md §7): an org admin approves or blocks an app for the org, an instance
// admin blocks one everywhere. The one home of what a decision covers; the consent screen, /mcp (through
// its lookup statement, access-lookup.ts, which says the same in SQL) and the consoles all ask here.
//
// Blocks are broad and approvals narrow. Every person who connects a self-registering client makes a
// registration of their own, and a hostile one can change its name, software_id or client_uri at will
// (RFC 7591 §2.2: all self-asserted). What it cannot change without losing its users is where the
// authorization response goes. So a block covers the blocked app and every app, present or future, that
// shares any of its marks (a non-loopback redirect host, a private-use scheme, a metadata document's
// host: identity.ts); an approval covers exactly the app approved, so a registration that copies an
// approved app's name or software_id but redirects elsewhere is another app and is not approved.
// A loopback-only app has no marks: it is matched by its key alone, and renaming makes it another app.
// The console says so next to the button.
import type { OrgAdmin, InstanceAdmin } from '@/lib/admin/access';
import { invalid, notFound } from '@/lib/admin/errors';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { ClientDecision } from '@/lib/generated/prisma/enums';
import { revokeGrantsWhere } from '@/lib/grants/revoke';
import { ensureClientApp } from './apps';
import { answerPendingRequests, type Requester, tellApproved } from './request-answers';

/** The app a decision was made on, and who made it. */
export type Block = {
  /** The app the block was put on: the app in question itself, or one it shares a mark with. */
  appId: string;
  appName: string;
  /** What the two share, as `host:…`/`scheme:…`; empty when the block is on the app itself. */
  shared: string[];
  decidedById: string | null;
  decidedByName: string | null;
  decidedAt: Date;
};

/** Where a client stands in each of the orgs asked about, and across the installation. */
export type AppStanding = {
  /** The client's app; null only for a client Gatehouse does not know. */
  app: { id: string; name: string } | null;
  /** An instance admin's block that covers the app, if any: it refuses the app in every org. */
  blockedEverywhere: Block | null;
  /** Per org asked about: the org's block that covers the app, and whether the app itself is approved. */
  orgs: Map<string, { block: Block | null; approved: boolean }>;
};

type AppRow = { id: string; displayName: string; marks: string[] };

/** What `mark` means to a person: "claude.ai", "cursor:". */
export function describeMark(mark: string): string {
  if (mark.startsWith('host:')) return mark.slice('host:'.length);
  if (mark.startsWith('scheme:')) return `${mark.slice('scheme:'.length)}:`;
  return mark;
}

/**
 * `app` and the apps sharing a mark with it. Sharing is symmetric, so this is both the apps whose block
 * would cover `app` and the apps a block on `app` covers.
 */
function coveringApps(app: AppRow) {
  return app.marks.length > 0 ? { OR: [{ id: app.id }, { marks: { hasSome: app.marks } }] } : { id: app.id };
}

function shared(app: AppRow, other: AppRow): string[] {
  return other.id === app.id ? [] : other.marks.filter((mark) => app.marks.includes(mark));
}

/** The app of a client, giving it one first if start-up has not yet. */
async function appOfClient(clientId: string): Promise<AppRow | null> {
  const select = { app: { select: { id: true, displayName: true, marks: true } } } as const;
  let client = await db().oAuthClient.findUnique({ where: { clientId }, select });
  if (client && !client.app) {
    await ensureClientApp(clientId);
    client = await db().oAuthClient.findUnique({ where: { clientId }, select });
  }
  return client?.app ?? null;
}

async function names(personIds: (string | null)[]): Promise<Map<string, string>> {
  const ids = [...new Set(personIds.filter((id): id is string => Boolean(id)))];
  const people = ids.length ? await db().person.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  return new Map(people.map((person) => [person.id, person.name]));
}

type DecisionRow = { orgId: string; appId: string; decision: ClientDecision; decidedById: string | null; decidedAt: Date; app: AppRow };
type BlockedAppRow = AppRow & { blockedAt: Date | null; blockedById: string | null };

/** Whether a block on `decided` covers `app`: the app itself, and any app sharing a mark with it. */
export function blockCovers(decided: AppRow, app: AppRow): boolean {
  return decided.id === app.id || decided.marks.some((mark) => app.marks.includes(mark));
}

/** Of the blocks covering `app`, the one shown: the block on the app itself first, then the oldest (it has held longest). */
function shownBlock(app: AppRow, candidates: { app: AppRow; at: Date; by: string | null }[], people: Map<string, string>): Block | null {
  const covering = candidates.filter((candidate) => blockCovers(candidate.app, app));
  covering.sort((a, b) => Number(b.app.id === app.id) - Number(a.app.id === app.id) || a.at.getTime() - b.at.getTime());
  const row = covering[0];
  if (!row) return null;
  return { appId: row.app.id, appName: row.app.displayName, shared: shared(app, row.app), decidedById: row.by, decidedByName: row.by ? (people.get(row.by) ?? null) : null, decidedAt: row.at };
}

/** Where `app` stands given one org's decisions and the instance-wide blocks (pure: the reads are the callers'). */
function standingFrom(app: AppRow, orgDecisions: DecisionRow[], instanceBlocks: BlockedAppRow[], people: Map<string, string>) {
  const blocks = orgDecisions.filter((row) => row.decision === 'blocked').map((row) => ({ app: row.app, at: row.decidedAt, by: row.decidedById }));
  const everywhere = instanceBlocks.filter((row) => row.blockedAt).map((row) => ({ app: row as AppRow, at: row.blockedAt!, by: row.blockedById }));
  const own = orgDecisions.find((row) => row.appId === app.id)?.decision ?? null;
  return { decision: own, block: shownBlock(app, blocks, people), approved: own === 'approved', blockedEverywhere: shownBlock(app, everywhere, people) };
}

const APP_ROW = { id: true, displayName: true, marks: true } as const;
const BLOCKED_APP_ROW = { ...APP_ROW, blockedAt: true, blockedById: true } as const;

/** Where `clientId`'s app stands in each of `orgIds` and across the installation. */
export async function appStanding(clientId: string, orgIds: string[]): Promise<AppStanding> {
  const app = await appOfClient(clientId);
  if (!app) return { app: null, blockedEverywhere: null, orgs: new Map(orgIds.map((orgId) => [orgId, { block: null, approved: false }])) };
  // Only the decisions that can cover this app are read: its own, and blocks on apps sharing a mark (GIN index on marks).
  const [everywhere, decisions] = await Promise.all([
    db().app.findMany({ where: { blockedAt: { not: null }, ...coveringApps(app) }, select: BLOCKED_APP_ROW }),
    orgIds.length
      ? db().orgAppDecision.findMany({ where: { orgId: { in: orgIds }, OR: [{ appId: app.id }, { decision: 'blocked', app: coveringApps(app) }] }, include: { app: { select: APP_ROW } } })
      : Promise.resolve([]),
  ]);
  const people = await names([...everywhere.map((row) => row.blockedById), ...decisions.map((row) => row.decidedById)]);
  const orgs = new Map(
    orgIds.map((orgId) => {
      const { block, approved } = standingFrom(
        app,
        decisions.filter((row) => row.orgId === orgId),
        [],
        people,
      );
      return [orgId, { block, approved }] as const;
    }),
  );
  return { app: { id: app.id, name: app.displayName }, blockedEverywhere: standingFrom(app, [], everywhere, people).blockedEverywhere, orgs };
}

/** What the org's Clients page shows of one app: the org's decision on it, and the blocks that cover it. */
export type OrgAppStanding = { decision: ClientDecision | null; block: Block | null; blockedEverywhere: Block | null };

/** The standing of each of `appIds` in the org, with every decision read once for the whole page. */
export async function orgAppStandings(orgId: string, appIds: string[]): Promise<Map<string, OrgAppStanding>> {
  const [apps, decisions, everywhere] = await Promise.all([
    db().app.findMany({ where: { id: { in: appIds } }, select: APP_ROW }),
    db().orgAppDecision.findMany({ where: { orgId }, include: { app: { select: APP_ROW } } }),
    db().app.findMany({ where: { blockedAt: { not: null } }, select: BLOCKED_APP_ROW }),
  ]);
  const people = await names([...everywhere.map((row) => row.blockedById), ...decisions.map((row) => row.decidedById)]);
  return new Map(
    apps.map((app) => {
      const { decision, block, blockedEverywhere } = standingFrom(app, decisions, everywhere, people);
      return [app.id, { decision, block, blockedEverywhere }] as const;
    }),
  );
}

/**
 * For each of `appIds`, the other apps of the installation a block on it would also cover (sharing a
 * mark), by name, at most `limit` each: what the console tells an admin before a block.
 */
export async function alsoCoveredBy(appIds: string[], limit = 10): Promise<Map<string, string[]>> {
  const apps = await db().app.findMany({ where: { id: { in: appIds } }, select: APP_ROW });
  const marks = [...new Set(apps.flatMap((app) => app.marks))];
  const sharing = marks.length ? await db().app.findMany({ where: { marks: { hasSome: marks } }, select: APP_ROW, orderBy: { lastSeenAt: 'desc' }, take: 500 }) : [];
  return new Map(
    apps.map(
      (app) =>
        [
          app.id,
          sharing
            .filter((other) => other.id !== app.id && blockCovers(app, other))
            .map((other) => other.displayName)
            .slice(0, limit),
        ] as const,
    ),
  );
}

/** The apps the org has decided on, whether or not anyone in it registered one yet (approved ahead, or blocked). */
export async function decidedAppIds(orgId: string): Promise<string[]> {
  const rows = await db().orgAppDecision.findMany({ where: { orgId }, select: { appId: true } });
  return rows.map((row) => row.appId);
}

/** The app, if this org may decide on it: any self-registered or metadata-document app, and its own hand-registered ones — never another org's. */
async function decidableApp(tx: Tx, orgId: string, appId: string): Promise<AppRow & { kind: string }> {
  const app = await tx.app.findUnique({ where: { id: appId }, select: { id: true, displayName: true, marks: true, kind: true, clients: { select: { ownerOrgId: true } } } });
  if (!app || (app.kind === 'admin' && !app.clients.some((client) => client.ownerOrgId === orgId))) throw notFound('This app is not known here.');
  return app;
}

/** Client registrations with live grants in `orgId` (every org when null) whose app a block on `app` covers. */
async function coveredClients(tx: Tx, app: AppRow, orgId: string | null): Promise<string[]> {
  const rows = await tx.grant.findMany({
    where: { revokedAt: null, ...(orgId ? { orgId } : {}), client: { app: coveringApps(app) } },
    select: { clientId: true },
    distinct: ['clientId'],
  });
  return rows.map((row) => row.clientId);
}

export type DecisionChange = ClientDecision | 'none';

/**
 * Approves or blocks an app for the org, or clears the decision. A block ends at once the live grants in
 * the org of every registration it covers, not when their tokens expire. An approval of an app that a
 * block on another app covers is refused: it could not take effect, and the admin should see why.
 * Its own transaction, then the emails: code already in a transaction calls decideAppIn and tells the
 * requesters after its own commit (an email sent inside a transaction is refused, and only logged).
 */
export async function decideApp(admin: OrgAdmin, appId: string, decision: DecisionChange, ip: string): Promise<{ revoked: number; requestsAnswered: number }> {
  const decided = await inTransaction((tx) => decideAppIn(tx, admin, appId, decision, ip));
  await tellApproved(admin, decided.appName, decided.approvedRequesters);
  return { revoked: decided.revoked, requestsAnswered: decided.requestsAnswered };
}

/**
 * decideApp inside the caller's transaction. It also answers the org's pending requests for the app
 * (request-answers.ts): an approval approves those for the app itself, a block declines those for every
 * app it covers. The requesters of an approval are returned, to be told after the commit (tellApproved).
 */
export async function decideAppIn(
  tx: Tx,
  admin: OrgAdmin,
  appId: string,
  decision: DecisionChange,
  ip: string,
): Promise<{ revoked: number; appName: string; approvedRequesters: Requester[]; requestsAnswered: number }> {
  const app = await decidableApp(tx, admin.org.id, appId);
  if (decision === 'approved') {
    const covering = await tx.orgAppDecision.findFirst({
      where: { orgId: admin.org.id, decision: 'blocked', appId: { not: app.id }, app: coveringApps(app) },
      include: { app: { select: { id: true, displayName: true, marks: true } } },
    });
    if (covering) {
      const what = shared(app, covering.app).map(describeMark).join(', ');
      throw invalid(`${app.displayName} cannot be approved: it shares ${what} with ${covering.app.displayName}, which this organization blocked. Unblock ${covering.app.displayName} first.`);
    }
  }
  if (decision === 'none') await tx.orgAppDecision.deleteMany({ where: { orgId: admin.org.id, appId } });
  else {
    const data = { decision, decidedById: admin.personId, decidedAt: new Date() };
    await tx.orgAppDecision.upsert({ where: { orgId_appId: { orgId: admin.org.id, appId } }, create: { orgId: admin.org.id, appId, ...data }, update: data });
  }
  let revoked = 0;
  if (decision === 'blocked') {
    for (const clientId of await coveredClients(tx, app, admin.org.id)) {
      revoked += await revokeGrantsWhere({ clientId, orgId: admin.org.id }, { byPersonId: admin.personId, reason: 'client_blocked', ip });
    }
  }
  await recordAudit(
    {
      type: decision === 'approved' ? 'app.approved' : decision === 'blocked' ? 'app.blocked' : 'app.decision_cleared',
      orgId: admin.org.id,
      actorPersonId: admin.personId,
      ip,
      data: { appId, app: app.displayName, marks: app.marks, revokedGrants: revoked },
    },
    tx,
  );
  const answer = { actorPersonId: admin.personId, ip };
  const approvedRequesters = decision === 'approved' ? await answerPendingRequests(tx, admin.org.id, { id: app.id }, { ...answer, status: 'approved', by: 'app_approved' }) : [];
  const declined = decision === 'blocked' ? await answerPendingRequests(tx, admin.org.id, coveringApps(app), { ...answer, status: 'declined', by: 'app_blocked' }) : [];
  return { revoked, appName: app.displayName, approvedRequesters, requestsAnswered: approvedRequesters.length + declined.length };
}

/**
 * An instance admin blocks an app everywhere, or lifts that block. The block covers what an org's would
 * (every app sharing a mark) in every org, and ends the live grants of every registration it covers.
 */
export async function blockAppEverywhere(admin: InstanceAdmin, appId: string, blocked: boolean, ip: string): Promise<{ revoked: number; requestsAnswered: number }> {
  return inTransaction(async (tx) => {
    const app = await tx.app.findUnique({ where: { id: appId }, select: { id: true, displayName: true, marks: true, blockedAt: true } });
    if (!app) throw notFound('This app is not known here.');
    if (Boolean(app.blockedAt) === blocked) return { revoked: 0, requestsAnswered: 0 };
    await tx.app.update({ where: { id: appId }, data: blocked ? { blockedAt: new Date(), blockedById: admin.personId } : { blockedAt: null, blockedById: null } });
    let revoked = 0;
    if (blocked) {
      for (const clientId of await coveredClients(tx, app, null)) {
        revoked += await revokeGrantsWhere({ clientId }, { byPersonId: admin.personId, reason: 'client_blocked', ip });
      }
    }
    await recordAudit(
      { type: blocked ? 'app.blocked_everywhere' : 'app.unblocked_everywhere', actorPersonId: admin.personId, ip, data: { appId, app: app.displayName, marks: app.marks, revokedGrants: revoked } },
      tx,
    );
    const declined = blocked ? await answerPendingRequests(tx, null, coveringApps(app), { status: 'declined', by: 'app_blocked_everywhere', actorPersonId: admin.personId, ip }) : [];
    return { revoked, requestsAnswered: declined.length };
  });
}

/** The org approves the app of a client it registered by hand, in the transaction that registers it. */
export async function approveOwnApp(tx: Tx, orgId: string, appId: string, personId: string): Promise<void> {
  const data = { decision: 'approved' as const, decidedById: personId, decidedAt: new Date() };
  await tx.orgAppDecision.upsert({ where: { orgId_appId: { orgId, appId } }, create: { orgId, appId, ...data }, update: data });
}

/**
 * Moves the decisions made on single registrations (before apps) onto their apps, for the registrations
 * the migration could not move because they had no app yet. Where an app already carries a decision in
 * the org, a block wins over an approval. Idempotent: a moved row is deleted. Run at start-up after
 * assignMissingApps. Returns how many were moved.
 */
export async function moveClientDecisions(): Promise<number> {
  let moved = 0;
  for (;;) {
    const batch = await moveSomeClientDecisions(500);
    if (batch === 0) return moved;
    moved += batch;
  }
}

function moveSomeClientDecisions(batch: number): Promise<number> {
  return inTransaction(async (tx) => {
    const rows = await tx.orgClientDecision.findMany({ where: { client: { appId: { not: null } } }, include: { client: { select: { appId: true } } }, take: batch });
    for (const row of rows) {
      const appId = row.client.appId!;
      const existing = await tx.orgAppDecision.findUnique({ where: { orgId_appId: { orgId: row.orgId, appId } } });
      if (!existing || (existing.decision === 'approved' && row.decision === 'blocked')) {
        const data = { decision: row.decision, decidedById: row.decidedById, decidedAt: row.decidedAt };
        await tx.orgAppDecision.upsert({ where: { orgId_appId: { orgId: row.orgId, appId } }, create: { orgId: row.orgId, appId, ...data }, update: data });
      }
      await tx.orgClientDecision.delete({ where: { orgId_clientId: { orgId: row.orgId, clientId: row.clientId } } });
    }
    return rows.length;
  });
}

/** Grants in the org whose app is not itself approved there: what "approved apps only" refuses. */
export function unapprovedGrantsWhere(orgId: string) {
  return { orgId, revokedAt: null, NOT: { client: { app: { orgDecisions: { some: { orgId, decision: 'approved' as const } } } } } };
}
