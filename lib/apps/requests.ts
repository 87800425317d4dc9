// Requests for access (docs/protocol.md §7): a member who meets an app their org's "approved apps only"
// policy refuses asks the org's admins to approve it, from the consent screen; the admins answer on the
// console's Requests page. Besides request-answers.ts, the only module that reads or writes access_requests.
//
// One row per org, app and person: asking again while the request is pending replaces its note; asking
// after a decline or an expiry reopens the row. A pending request expires EXPIRY_DAYS after it was asked
// (the sweeper, lib/oauth/sweeper.ts). Approving a request is approving the app (decideApp), which lets
// every member in; so it answers every pending request for that app in the org at once, as any approval
// or block of the app does (request-answers.ts, which writes those answers). Each step is an audit event,
// written in the transaction of the change. Emails are sent after the commit, never inside the
// transaction (lib/db/transaction.ts: nothing waits on the network while one is open).
import type { OrgAdmin } from '@/lib/admin/access';
import { conflict, notFound } from '@/lib/admin/errors';
import { recordAudit } from '@/lib/audit/events';
import { hasPermission, permissionsOf } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { isStorableText } from '@/lib/db/storable-text';
import { inTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import type { AccessRequestStatus } from '@/lib/generated/prisma/enums';
import { Prisma } from '@/lib/generated/prisma/client';
import { emailConfigured } from '@/lib/mail/smtp';
import { invisibleCharacterIn } from '@/lib/oauth/registration';
import { describeEvidence } from './apps';
import { appStanding, decideAppIn } from './decisions';
import { mailQuietly, type Requester, tellApproved } from './request-answers';

export const EXPIRY_DAYS = 30;
export const NOTE_MAX_LENGTH = 500;
/** Asks per person per RATE_WINDOW_MS, counting new requests, reopened ones and note updates alike. */
export const RATE_LIMIT = 10;
export const RATE_WINDOW_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Why a person may not ask, for code (the consent screen words each one). */
export type AskRefusal = 'not_member' | 'not_askable' | 'note_too_long' | 'note_characters' | 'rate_limited';

export type AskResult = { ok: true; outcome: 'created' | 'reopened' | 'updated'; request: { id: string; askedAt: Date; expiresAt: Date } } | { ok: false; refusal: AskRefusal; message: string };

/**
 * The note as stored, or why it cannot be: at most NOTE_MAX_LENGTH characters, text PostgreSQL can store,
 * and none of the invisible, bidirectional or control characters refused in client metadata
 * (lib/oauth/registration.ts), since admins read it next to the app's name. Line breaks are the one
 * control character a note may hold (a textarea sends them as CRLF; stored as LF). Empty is no note.
 */
export function parseNote(raw: string): { ok: true; note: string | null } | { ok: false; refusal: 'note_too_long' | 'note_characters'; message: string } {
  const note = raw.replace(/\r\n?/g, '\n').trim();
  if (note.length > NOTE_MAX_LENGTH) return { ok: false, refusal: 'note_too_long', message: `The note is too long: at most ${NOTE_MAX_LENGTH} characters.` };
  const found = isStorableText(note) ? invisibleCharacterIn(note.replaceAll('\n', '')) : 'NUL or broken Unicode';
  if (found) return { ok: false, refusal: 'note_characters', message: `The note must not contain invisible, bidirectional or control characters (found ${found}).` };
  return { ok: true, note: note === '' ? null : note };
}

function refused(refusal: AskRefusal, message: string): AskResult {
  return { ok: false, refusal, message };
}

/**
 * The person asks the admins of `orgId` to approve the app of `clientId`, the registration they tried to
 * connect. Only an active member may ask, only where the org allows approved apps only and its plan is
 * active, and only for an app neither approved nor blocked there (a block is an answer already).
 */
export async function requestAccess(person: Requester, orgId: string, clientId: string, rawNote: string, ip: string, now = new Date()): Promise<AskResult> {
  const parsed = parseNote(rawNote);
  if (!parsed.ok) return refused(parsed.refusal, parsed.message);
  // Any text reaches here from the form: what PostgreSQL cannot store names no organization (and would be a 500).
  if (!isStorableText(orgId)) return refused('not_member', 'You are not a member of this organization.');
  const membership = await db().membership.findFirst({
    where: { personId: person.id, orgId, status: 'active' },
    select: { org: { select: { id: true, slug: true, name: true, appPolicy: true, planStatus: true } } },
  });
  if (!membership) return refused('not_member', 'You are not a member of this organization.');
  const { org } = membership;
  if (org.planStatus !== 'active') return refused('not_askable', `${org.name}'s plan is inactive: no app can be connected there.`);
  if (org.appPolicy !== 'approved') return refused('not_askable', `${org.name} does not need to approve apps: connect it from the app.`);
  const standing = await appStanding(clientId, [org.id]);
  const inOrg = standing.orgs.get(org.id);
  if (!standing.app) return refused('not_askable', 'This app is not known here.');
  if (standing.blockedEverywhere || inOrg?.block) return refused('not_askable', `${standing.app.name} is blocked in ${org.name}: it cannot be requested.`);
  if (inOrg?.approved) return refused('not_askable', `${org.name} already approved ${standing.app.name}: connect it from the app.`);
  const app = standing.app;

  const ask = () =>
    inTransaction(async (tx): Promise<AskResult> => {
      // The limit is a count of the person's asks in the audit log (indexed by actor and time), not an
      // in-memory window (lib/rate-limit/fixed-window.ts): it holds across instances and restarts. Two asks
      // racing on PostgreSQL may both pass the count; the limit is against flooding admins, not exact.
      const recent = await tx.auditEvent.count({
        where: { actorPersonId: person.id, type: { in: ['access_request.created', 'access_request.updated'] }, createdAt: { gt: new Date(now.getTime() - RATE_WINDOW_MS) } },
      });
      if (recent >= RATE_LIMIT) return refused('rate_limited', `You have asked ${RATE_LIMIT} times in the last hour. Try again later.`);
      const existing = await tx.accessRequest.findUnique({ where: { orgId_appId_personId: { orgId: org.id, appId: app.id, personId: person.id } } });
      const expiresAt = new Date(now.getTime() + EXPIRY_DAYS * DAY_MS);
      let row: { id: string; createdAt: Date; expiresAt: Date };
      let outcome: 'created' | 'reopened' | 'updated';
      if (existing?.status === 'pending' && existing.expiresAt > now) {
        // The same question again: one request, its note replaced; it keeps its date and its expiry.
        row = await tx.accessRequest.update({ where: { id: existing.id }, data: { note: parsed.note, clientId } });
        outcome = 'updated';
      } else {
        const data = { note: parsed.note, clientId, status: 'pending' as const, createdAt: now, expiresAt, decidedById: null, decidedAt: null };
        row = existing ? await tx.accessRequest.update({ where: { id: existing.id }, data }) : await tx.accessRequest.create({ data: { orgId: org.id, appId: app.id, personId: person.id, ...data } });
        outcome = existing ? 'reopened' : 'created';
      }
      await recordAudit(
        {
          type: outcome === 'updated' ? 'access_request.updated' : 'access_request.created',
          orgId: org.id,
          actorPersonId: person.id,
          clientId,
          ip,
          data: { requestId: row.id, appId: app.id, app: app.name, note: parsed.note, reopened: outcome === 'reopened' },
        },
        tx,
      );
      return { ok: true, outcome, request: { id: row.id, askedAt: row.createdAt, expiresAt: row.expiresAt } };
    });

  let result: AskResult;
  try {
    result = await ask();
  } catch (error) {
    // Two first asks at once meet on the unique index: the second one is then a repeat of the first.
    if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
    result = await ask();
  }
  if (result.ok && result.outcome !== 'updated') await tellAdmins(org, app.name, person, parsed.note, result.request.expiresAt);
  return result;
}

/** A request as the console lists it. */
export type AccessRequestRow = {
  id: string;
  status: AccessRequestStatus;
  person: { id: string; name: string; email: string };
  app: { id: string; name: string; evidence: string };
  note: string | null;
  askedAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedByName: string | null;
};

/** How many decided requests the console lists: the latest. */
export const DECIDED_SHOWN = 50;
const PENDING_SHOWN = 500;

/**
 * The org's pending requests, oldest first, or its decided ones (approved, declined, expired), latest
 * first. A pending request past its expiry that the sweeper has not reached yet is listed as expired.
 */
export async function listRequests(admin: OrgAdmin, which: 'pending' | 'decided', now = new Date()): Promise<AccessRequestRow[]> {
  const live = { status: 'pending' as const, expiresAt: { gt: now } };
  const rows = await db().accessRequest.findMany({
    where: which === 'pending' ? { orgId: admin.org.id, ...live } : { orgId: admin.org.id, NOT: live },
    include: { person: { select: { id: true, name: true, email: true } }, app: { select: { id: true, displayName: true, evidence: true } } },
    orderBy: which === 'pending' ? { createdAt: 'asc' } : { updatedAt: 'desc' },
    take: which === 'pending' ? PENDING_SHOWN : DECIDED_SHOWN,
  });
  const deciders = [...new Set(rows.flatMap((row) => (row.decidedById ? [row.decidedById] : [])))];
  const names = new Map((deciders.length ? await db().person.findMany({ where: { id: { in: deciders } }, select: { id: true, name: true } }) : []).map((person) => [person.id, person.name]));
  return rows.map((row) => ({
    id: row.id,
    status: row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status,
    person: row.person,
    app: { id: row.app.id, name: row.app.displayName, evidence: describeEvidence(row.app.evidence) },
    note: row.note,
    askedAt: row.createdAt,
    expiresAt: row.expiresAt,
    decidedAt: row.decidedAt,
    decidedByName: row.decidedById ? (names.get(row.decidedById) ?? null) : null,
  }));
}

/** How many requests wait for an answer in the org: the count next to Clients in the console's navigation. */
export function pendingCount(orgId: string, now = new Date()): Promise<number> {
  return db().accessRequest.count({ where: { orgId, status: 'pending', expiresAt: { gt: now } } });
}

/** The person's pending requests for the app of `clientId`, by org: what the consent screen says was asked. */
export async function pendingRequestsOf(personId: string, clientId: string, orgIds: string[], now = new Date()): Promise<Map<string, { askedAt: Date; expiresAt: Date }>> {
  if (orgIds.length === 0) return new Map();
  const rows = await db().accessRequest.findMany({
    where: { personId, orgId: { in: orgIds }, status: 'pending', expiresAt: { gt: now }, app: { clients: { some: { clientId } } } },
    select: { orgId: true, createdAt: true, expiresAt: true },
  });
  return new Map(rows.map((row) => [row.orgId, { askedAt: row.createdAt, expiresAt: row.expiresAt }]));
}

/** A pending request of the admin's org, or a refusal: another org's id is "not found", like any id (docs/architecture.md). */
async function pendingRequest(admin: OrgAdmin, requestId: string, now: Date) {
  const request = await db().accessRequest.findFirst({ where: { id: requestId, orgId: admin.org.id }, include: { app: { select: { displayName: true } } } });
  if (!request) throw notFound('This request is not known here.');
  if (request.status !== 'pending' || request.expiresAt <= now) throw conflict('This request was already answered or has expired.');
  return request;
}

/**
 * Approves the request by approving its app for the org (decideAppIn, in the same transaction: refused as
 * it would be there, for an app a block covers), which answers every pending request for that app in the
 * org with it (request-answers.ts). Each requester is emailed after the commit, when SMTP is configured.
 */
export async function approveRequest(admin: OrgAdmin, requestId: string, ip: string, now = new Date()): Promise<{ approved: number }> {
  const decided = await inTransaction(async (tx) => {
    const request = await pendingRequest(admin, requestId, now);
    // An approval would replace the org's block on this very app: a request asked before the block must
    // not lift it. Unblocking is done on the Apps page, on purpose. (A block declines the pending requests
    // it covers, so this is a request that reached here between the two.)
    const own = await tx.orgAppDecision.findUnique({ where: { orgId_appId: { orgId: admin.org.id, appId: request.appId } }, select: { decision: true } });
    if (own?.decision === 'blocked') throw conflict(`${request.app.displayName} is blocked in ${admin.org.name}: unblock it on the Apps page first, or decline the request.`);
    return decideAppIn(tx, admin, request.appId, 'approved', ip);
  });
  await tellApproved(admin, decided.appName, decided.approvedRequesters);
  return { approved: decided.approvedRequesters.length };
}

/** Declines the request; the app stays as it was, and the person may ask again later. */
export async function declineRequest(admin: OrgAdmin, requestId: string, ip: string, now = new Date()): Promise<{ declined: number }> {
  return inTransaction(async (tx) => {
    const request = await pendingRequest(admin, requestId, now);
    const changed = await tx.accessRequest.updateMany({ where: { id: request.id, status: 'pending' }, data: { status: 'declined', decidedById: admin.personId, decidedAt: now } });
    if (changed.count === 0) throw conflict('This request was already answered or has expired.');
    await recordAudit(
      {
        type: 'access_request.declined',
        orgId: admin.org.id,
        actorPersonId: admin.personId,
        clientId: request.clientId,
        ip,
        data: { requestId: request.id, appId: request.appId, app: request.app.displayName, personId: request.personId },
      },
      tx,
    );
    return { declined: 1 };
  });
}

/**
 * Marks pending requests past their expiry expired, with an audit event each; run by the sweeper. Each row
 * is re-checked under its update, so two overlapping sweeps record each expiry once. Returns how many.
 */
export async function expireRequests(now = new Date()): Promise<number> {
  const due = await db().accessRequest.findMany({ where: { status: 'pending', expiresAt: { lte: now } }, select: { id: true, orgId: true, appId: true, personId: true, clientId: true }, take: 500 });
  let expired = 0;
  for (const row of due) {
    const done = await inTransaction(async (tx) => {
      const changed = await tx.accessRequest.updateMany({ where: { id: row.id, status: 'pending', expiresAt: { lte: now } }, data: { status: 'expired', decidedAt: now } });
      if (changed.count === 0) return false;
      await recordAudit(
        { type: 'access_request.expired', orgId: row.orgId, clientId: row.clientId, data: { requestId: row.id, appId: row.appId, personId: row.personId, by: 'sweeper', afterDays: EXPIRY_DAYS } },
        tx,
      );
      return true;
    });
    if (done) expired += 1;
  }
  return expired;
}

/** "2026-12-01 18:30 UTC": how emails give a time (the reader's time zone is not known). */
function utc(date: Date): string {
  return `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

/** Emails the org's admins (every active member whose role manages apps) that a request waits. */
async function tellAdmins(org: { id: string; slug: string; name: string }, appName: string, person: Requester, note: string | null, expiresAt: Date): Promise<void> {
  if (!emailConfigured()) return;
  const memberships = await db().membership.findMany({ where: { orgId: org.id, status: 'active', person: { disabledAt: null } }, select: { role: true, person: { select: { email: true } } } });
  const link = `${env().publicUrl}/admin/${org.slug}/clients/requests`;
  for (const { role, person: admin } of memberships) {
    if (!hasPermission({ permissions: permissionsOf(role) }, 'apps:manage')) continue;
    // Names go in the body only: the subject is a header, and names are typed by people.
    await mailQuietly(admin.email, 'An app waits for your approval in Gatehouse', [
      `${person.name} (${person.email}) asks the admins of ${org.name} to approve ${appName}, so that they can connect it.`,
      ...(note ? ['', 'Their note:', note] : []),
      '',
      `Approve or decline it on the Requests page: ${link}`,
      `The request expires on ${utc(expiresAt)} if nobody answers it.`,
    ]);
  }
}
