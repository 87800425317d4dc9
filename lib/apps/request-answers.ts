// Access requests answered by a decision on their app (docs/protocol.md §7). Approving an app for the org,
// by any path (the Apps page, approving ahead, a metadata document, or one of the requests), answers
// every pending request for that very app there: approved. A block declines every pending request for an
// app it covers, where it applies: the org's in the org, an instance admin's in every org. Otherwise a
// request would wait in the admins' queue for an answer given already, and its requester would never hear
// of the approval. A change of the org's policy answers nothing: a request asked under "approved apps
// only" is still the right question if the org goes back to it, and it expires on its own.
//
// Each answer is an audit event written in the decision's transaction; the requesters of an approval are
// emailed after the commit (tellApproved), never inside it (lib/db/transaction.ts). requests.ts owns the
// rest of access_requests: asking, listing, declining one, expiring.
import type { OrgAdmin } from '@/lib/admin/access';
import { recordAudit } from '@/lib/audit/events';
import type { Tx } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import type { Prisma } from '@/lib/generated/prisma/client';
import { emailConfigured, sendEmail } from '@/lib/mail/smtp';

export type Requester = { id: string; name: string; email: string };

/** What answered the requests, as their audit events say (`by`). */
export type AnsweredBy = 'app_approved' | 'app_blocked' | 'app_blocked_everywhere';

type Answer = { status: 'approved' | 'declined'; by: AnsweredBy; actorPersonId: string; ip: string };

/**
 * Answers the live pending requests in `orgId` (every org when null) whose app matches `app`, and returns
 * their requesters. A request past its expiry that the sweeper has not reached yet is left to it.
 */
export async function answerPendingRequests(tx: Tx, orgId: string | null, app: Prisma.AppWhereInput, answer: Answer, now = new Date()): Promise<Requester[]> {
  const pending = await tx.accessRequest.findMany({
    where: { status: 'pending', expiresAt: { gt: now }, app, ...(orgId ? { orgId } : {}) },
    include: { person: { select: { id: true, name: true, email: true } }, app: { select: { displayName: true } } },
  });
  if (pending.length === 0) return [];
  await tx.accessRequest.updateMany({ where: { id: { in: pending.map((row) => row.id) }, status: 'pending' }, data: { status: answer.status, decidedById: answer.actorPersonId, decidedAt: now } });
  for (const row of pending) {
    await recordAudit(
      {
        type: answer.status === 'approved' ? 'access_request.approved' : 'access_request.declined',
        orgId: row.orgId,
        actorPersonId: answer.actorPersonId,
        clientId: row.clientId,
        ip: answer.ip,
        data: { requestId: row.id, appId: row.appId, app: row.app.displayName, personId: row.person.id, person: row.person.email, by: answer.by },
      },
      tx,
    );
  }
  return pending.map((row) => row.person);
}

/** Emails each requester that the app was approved: they finish from the app, which starts a new authorization. */
export async function tellApproved(admin: OrgAdmin, appName: string, people: Requester[]): Promise<void> {
  for (const person of people) {
    await mailQuietly(person.email, 'Your access request was approved in Gatehouse', [
      `Hello ${person.name},`,
      '',
      `${admin.personName}, an admin of ${admin.org.name}, approved ${appName}. Connect it again from the app: this time ${admin.org.name} can be picked on the consent screen.`,
      '',
      `Gatehouse: ${env().publicUrl}/`,
    ]);
  }
}

/** Sends one email when SMTP is configured; a failure is logged, never thrown (the change is made either way). */
export async function mailQuietly(to: string, subject: string, lines: string[]): Promise<void> {
  if (!emailConfigured()) return;
  try {
    await sendEmail({ to, subject, text: lines.join('\n') });
  } catch (error) {
    console.error(`gatehouse: could not email ${to} about an access request: ${(error as Error).message}`);
  }
}
