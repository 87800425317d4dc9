// Security events (docs/protocol.md §7). Each is written with the same transaction client as the change it
// records, so there is never a change without its record, nor a record of a change that rolled back.
import { db, type Tx } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';

export type AuditEventType =
  | 'client.registered'
  | 'client.updated'
  | 'client.deleted'
  | 'client.disabled'
  | 'client.enabled'
  | 'client.approved'
  | 'client.blocked'
  | 'client.decision_cleared'
  | 'app.approved'
  | 'app.blocked'
  | 'app.decision_cleared'
  | 'app.blocked_everywhere'
  | 'app.unblocked_everywhere'
  | 'connector.added'
  | 'connector.removed'
  | 'connector.enabled'
  | 'connector.disabled'
  | 'connector.tool_held'
  | 'connector.tool_released'
  | 'connector.tool_removed'
  | 'connector.tool_approved'
  | 'connector.tool_kept_held'
  | 'connector.tool_scope_changed'
  | 'connector.offered'
  | 'connector.credential_replaced'
  | 'connector.updated'
  | 'access_request.created'
  | 'access_request.updated'
  | 'access_request.approved'
  | 'access_request.declined'
  | 'access_request.expired'
  | 'org.app_policy_changed'
  | 'org.plan_changed'
  | 'tool.restricted'
  | 'tool.unrestricted'
  | 'consent.granted'
  | 'consent.denied'
  | 'token.issued'
  | 'token.refreshed'
  | 'refresh.reuse_detected'
  | 'grant.revoked'
  | 'person.created'
  | 'person.password_changed'
  | 'person.locked'
  | 'person.sessions_ended'
  | 'person.password_reset_link_created'
  | 'person.password_set'
  | 'person.unlocked'
  | 'member.added'
  | 'member.invited'
  | 'member.role_changed'
  | 'member.deactivated'
  | 'member.reactivated'
  | 'member.removed'
  | 'person.disabled'
  | 'person.enabled'
  | 'org.created'
  | 'keys.rotated'
  | 'auth_secret.rotated'
  | 'demo.seeded';

/** Who made a change, and through what: the actor of its audit event. */
export type ChangedBy = { actorPersonId: string | null; ip: string | null; via: 'cli' | 'console' | 'schedule' };

/** A change made from the command line on the server, where no person is signed in. */
export const FROM_CLI: ChangedBy = { actorPersonId: null, ip: null, via: 'cli' };

/** A change a server's periodic job made on its own (a scheduled catalog refresh). */
export const ON_SCHEDULE: ChangedBy = { actorPersonId: null, ip: null, via: 'schedule' };

export type AuditEvent = {
  type: AuditEventType;
  orgId?: string | null;
  actorPersonId?: string | null;
  clientId?: string | null;
  grantId?: string | null;
  ip?: string | null;
  data?: Prisma.InputJsonObject;
};

export async function recordAudit(event: AuditEvent, tx: Tx = db()): Promise<void> {
  await tx.auditEvent.create({
    data: {
      type: event.type,
      orgId: event.orgId ?? null,
      actorPersonId: event.actorPersonId ?? null,
      clientId: event.clientId ?? null,
      grantId: event.grantId ?? null,
      ip: event.ip ?? null,
      data: event.data ?? {},
    },
  });
}
