// Apps as rows that client registrations point to (docs/protocol.md §3): the one home of how a
// registration joins its app, how apps are counted, and which empty ones go. identity.ts says which app
// a registration belongs to; this module stores it. Nothing here reads from the network, so every
// function may run inside the transaction of the registration it records (lib/db/transaction.ts).
import { db } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import type { ClientRegistration } from '@/lib/generated/prisma/enums';
import type { Prisma } from '@/lib/generated/prisma/client';
import { type AppEvidence, type AppIdentity, type AppKind, appIdentity } from './identity';

export { appIdentity } from './identity';
export type { AppEvidence, AppIdentity, AppKind } from './identity';

/**
 * Points the client at the app `identity` names, creating the app on its first registration. The app's
 * last-seen time moves on; the registration counts of the app it joins and of the one it leaves (an
 * RFC 7592 rename can move it) are recounted from the rows, so they stay right whatever ran before.
 * Joins the caller's transaction. Returns the app's id.
 */
export function assignApp(clientId: string, identity: AppIdentity, now = new Date()): Promise<string> {
  return inTransaction(async (tx) => {
    const appId = await ensureApp(identity, now);
    const client = await tx.oAuthClient.findUnique({ where: { clientId }, select: { appId: true } });
    if (!client) return appId;
    if (client.appId !== appId) await tx.oAuthClient.update({ where: { clientId }, data: { appId } });
    await recountApps(tx, [appId, client.appId]);
    return appId;
  });
}

/**
 * The app `identity` names, created when it does not exist yet, with no registration pointing to it: an
 * app approved ahead of time (documents.ts), which the first registration with the same key then joins
 * through assignApp. Its last-seen time moves on. Joins the caller's transaction. Returns the app's id.
 */
export function ensureApp(identity: AppIdentity, now = new Date()): Promise<string> {
  return inTransaction(async (tx) => {
    // A single INSERT … ON CONFLICT (Prisma's database upsert: one unique field in `where`): two
    // registrations of one product at the same moment (Claude registers twice per connect) meet on the
    // key instead of failing on it.
    const app = await tx.app.upsert({
      where: { key: identity.key },
      create: {
        key: identity.key,
        kind: identity.kind,
        displayName: identity.displayName,
        evidence: identity.evidence as Prisma.InputJsonValue,
        marks: identity.marks,
        firstSeenAt: now,
        lastSeenAt: now,
      },
      // Marks follow from the key (hosts and schemes are part of it; a document's host is its URL's), so
      // writing them again changes nothing but apps stored before a kind had marks.
      update: { lastSeenAt: now, marks: identity.marks },
      select: { id: true },
    });
    return app.id;
  });
}

/** Sets each app's registration count to the number of client rows pointing to it. */
export async function recountApps(tx: Tx, appIds: (string | null | undefined)[]): Promise<void> {
  for (const id of new Set(appIds.filter((appId): appId is string => Boolean(appId)))) {
    const count = await tx.oAuthClient.count({ where: { appId: id } });
    await tx.app.updateMany({ where: { id }, data: { registrationCount: count } });
  }
}

/** The identity of a stored client: Gatehouse's row, with the provider's metadata when it has some (CIMD clients do not). */
export function storedClientIdentity(client: { clientId: string; registration: ClientRegistration; name: string | null }, metadata: unknown): AppIdentity {
  const fields = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {};
  return appIdentity({
    ...fields,
    client_id: client.clientId,
    registration: client.registration,
    client_name: Object.hasOwn(fields, 'client_name') ? fields.client_name : client.name,
  });
}

/** Gives the client its app from what is stored of it, when it has none yet. */
export async function ensureClientApp(clientId: string): Promise<void> {
  const client = await db().oAuthClient.findUnique({ where: { clientId }, select: { clientId: true, registration: true, name: true, appId: true } });
  if (!client || client.appId) return;
  const stored = await db().oidcModel.findUnique({ where: { model_id: { model: 'Client', id: clientId } }, select: { payload: true } });
  await assignApp(clientId, storedClientIdentity(client, stored?.payload ?? null));
}

/**
 * Gives every client without an app its app, from the provider's stored metadata (model "Client") and
 * Gatehouse's row: the clients registered before apps existed, and any whose app was removed under them.
 * Idempotent (a client that has an app is not looked at); run once at start-up, after the migrations.
 * Returns how many clients were assigned.
 */
export async function assignMissingApps(batch = 200): Promise<number> {
  let assigned = 0;
  let after = '';
  for (;;) {
    const clients = await db().oAuthClient.findMany({
      where: { appId: null, clientId: { gt: after } },
      select: { clientId: true, registration: true, name: true },
      orderBy: { clientId: 'asc' },
      take: batch,
    });
    if (clients.length === 0) return assigned;
    const stored = await db().oidcModel.findMany({ where: { model: 'Client', id: { in: clients.map((client) => client.clientId) } }, select: { id: true, payload: true } });
    const metadata = new Map(stored.map((row) => [row.id, row.payload]));
    for (const client of clients) {
      await assignApp(client.clientId, storedClientIdentity(client, metadata.get(client.clientId) ?? null));
      assigned += 1;
    }
    after = clients[clients.length - 1]!.clientId;
  }
}

/**
 * Gives metadata-document apps stored before they had marks (their document's host) their marks, so that
 * blocks cover them. Idempotent; run at start-up. Returns how many were given marks.
 */
export async function markDocumentApps(): Promise<number> {
  const apps = await db().app.findMany({ where: { kind: 'metadata_document', marks: { isEmpty: true } }, select: { id: true, key: true } });
  let marked = 0;
  for (const app of apps) {
    const { marks } = appIdentity({ registration: 'metadata_document', client_id: app.key.slice('document:'.length) });
    if (marks.length === 0) continue;
    await db().app.update({ where: { id: app.id }, data: { marks } });
    marked += 1;
  }
  return marked;
}

/** How long an app with no registration left is kept: a product that registers again soon stays the same row. */
export const EMPTY_APP_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes apps no registration points to any more (their last one deleted, swept or renamed away), once
 * they have not been seen for EMPTY_APP_GRACE_MS. Returns how many.
 */
export async function pruneEmptyApps(now = new Date()): Promise<number> {
  // An app that carries a decision is kept: a block must outlive the registrations it was made on, and an
  // approval made ahead of time comes before any registration. So is one people asked for (requests.ts):
  // the request, and its history, name the app.
  const removed = await db().app.deleteMany({
    where: { clients: { none: {} }, orgDecisions: { none: {} }, accessRequests: { none: {} }, blockedAt: null, lastSeenAt: { lt: new Date(now.getTime() - EMPTY_APP_GRACE_MS) } },
  });
  return removed.count;
}

/** How people are told what an app's registrations were grouped by. */
export function describeEvidence(evidence: unknown): string {
  const value = (typeof evidence === 'object' && evidence !== null ? evidence : {}) as Partial<Record<string, unknown>>;
  const list = (field: string) => (Array.isArray(value[field]) ? (value[field] as unknown[]).filter((item): item is string => typeof item === 'string') : []);
  switch (value.kind as AppEvidence['kind'] | undefined) {
    case 'metadata_document':
      return `metadata document ${typeof value.documentUrl === 'string' ? value.documentUrl : ''}`.trim();
    case 'admin':
      return 'registered by an admin';
    case 'redirects': {
      const targets = [...list('hosts'), ...list('schemes').map((scheme) => `${scheme}:`)];
      return `redirects to ${targets.join(', ')}${typeof value.softwareId === 'string' ? ` · software ID ${value.softwareId}` : ''}`;
    }
    case 'loopback':
      return value.clientId ? 'loopback only, unnamed: a registration of its own' : 'loopback only, grouped by name';
    default:
      return 'not grouped yet';
  }
}

/** An app as the consoles show it, with the registrations listed under it. */
export type AppGroup<Row> = {
  /** null for registrations that have no app yet (start-up assigns one). */
  appId: string | null;
  name: string;
  kind: AppKind | null;
  evidence: string;
  firstSeenAt: Date | null;
  lastSeenAt: Date | null;
  registrationCount: number;
  registrations: Row[];
};

type AppSummary = { id: string; kind: string; displayName: string; evidence: unknown; firstSeenAt: Date; lastSeenAt: Date; registrationCount: number };

/**
 * Groups rows (each naming its app) under their apps, in the order the rows came: an app comes where
 * its first registration does. `apps` are the apps the rows point to.
 */
export function groupByApp<Row extends { appId: string | null; clientId: string; name: string | null }>(rows: Row[], apps: AppSummary[]): AppGroup<Row>[] {
  const byId = new Map(apps.map((app) => [app.id, app]));
  const groups = new Map<string, AppGroup<Row>>();
  for (const row of rows) {
    const app = row.appId ? byId.get(row.appId) : undefined;
    const groupKey = app ? `app:${app.id}` : `client:${row.clientId}`;
    let group = groups.get(groupKey);
    if (!group) {
      group = app
        ? emptyGroup<Row>(app)
        : { appId: null, name: row.name ?? row.clientId, kind: null, evidence: describeEvidence(null), firstSeenAt: null, lastSeenAt: null, registrationCount: 1, registrations: [] };
      groups.set(groupKey, group);
    }
    group.registrations.push(row);
  }
  return [...groups.values()];
}

/** An app's group with no registration listed under it yet. */
export function emptyGroup<Row>(app: AppSummary): AppGroup<Row> {
  return {
    appId: app.id,
    name: app.displayName,
    kind: app.kind as AppKind,
    evidence: describeEvidence(app.evidence),
    firstSeenAt: app.firstSeenAt,
    lastSeenAt: app.lastSeenAt,
    registrationCount: app.registrationCount,
    registrations: [],
  };
}

/** The apps `appIds` name, as groupByApp needs them. */
export function appSummaries(appIds: (string | null)[]): Promise<AppSummary[]> {
  const ids = [...new Set(appIds.filter((id): id is string => Boolean(id)))];
  return db().app.findMany({
    where: { id: { in: ids } },
    select: { id: true, kind: true, displayName: true, evidence: true, firstSeenAt: true, lastSeenAt: true, registrationCount: true },
  });
}
