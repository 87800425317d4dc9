import { z } from 'zod';
import { auditEventsPage } from '@/lib/audit/read';
import { instant, pageCursor } from './arguments';
import { defineTool } from './definition';

const PAGE_MAX = 100;

export const readAuditLog = defineTool({
  name: 'read_audit_log',
  title: 'Read the audit log',
  description:
    "Reads the organization's security events (registrations, consents, token issuance, revocations, admin changes), newest first. Filter by event type and time; page with the returned cursor.",
  input: z
    .object({
      type: z.string().max(100).optional().describe('Only events of this type, e.g. "grant.revoked"'),
      since: instant().optional().describe('Only events at or after this time (ISO 8601)'),
      limit: z.number().int().min(1).max(PAGE_MAX).default(20),
      cursor: pageCursor().optional().describe('nextCursor from a previous page'),
    })
    .strict(),
  output: z.object({
    events: z.array(
      z.object({ id: z.string(), type: z.string(), at: z.string(), actorPersonId: z.string().nullable(), clientId: z.string().nullable(), grantId: z.string().nullable(), data: z.unknown() }),
    ),
    nextCursor: z.string().nullable(),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'mcp:read',
  permission: 'audit:read',
  async run(caller, input) {
    // The console's paging: the cursor is the `older` cursor of the previous page.
    const page = await auditEventsPage(caller.orgId, { type: input.type, range: input.since ? { gte: new Date(input.since) } : undefined }, { before: input.cursor }, input.limit);
    const events = page.rows.map((row) => ({
      id: row.id.toString(),
      type: row.type,
      at: row.createdAt.toISOString(),
      actorPersonId: row.actorPersonId,
      clientId: row.clientId,
      grantId: row.grantId,
      data: row.data,
    }));
    const nextCursor = page.older;
    return {
      text: events.length
        ? `${events.length} event(s) in ${caller.orgName}${nextCursor ? ' (more available)' : ''}:\n${events.map((event) => `- ${event.at} ${event.type}`).join('\n')}`
        : `No matching events in ${caller.orgName}.`,
      structured: { events, nextCursor },
    };
  },
});
