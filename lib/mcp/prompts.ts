// Prompts (SPEC §6): a prompt that puts the organization's recent security events in front of the model
// and asks for a summary. prompts/get needs mcp:read, and — since it shows the audit log — a role that
// may read it.
import { hasPermission } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import type { Caller } from './caller';
import { invalidRequest, JSON_RPC, McpError } from './errors';

export const AUDIT_SUMMARY_PROMPT = 'summarize_audit_activity';

const PROMPTS = [
  {
    name: AUDIT_SUMMARY_PROMPT,
    title: 'Summarize recent security activity',
    description: "Summarizes the organization's audit log over the last few days: new connections, revocations, unusual events.",
    arguments: [{ name: 'days', description: 'How many days back to look (1–30, default 7)', required: false }],
  },
];

export function listPrompts() {
  return { prompts: PROMPTS };
}

export async function getPrompt(caller: Caller, name: string, args: Record<string, unknown>) {
  if (name !== AUDIT_SUMMARY_PROMPT) throw new McpError(JSON_RPC.INVALID_PARAMS, `Unknown prompt: ${name}`, 200);
  if (!hasPermission(caller, 'audit:read')) {
    throw new McpError(
      JSON_RPC.FORBIDDEN,
      `${caller.personName}'s role in ${caller.orgName} ("${caller.role}") does not allow reading the audit log. Reconnecting will not help; an admin of ${caller.orgName} can change the role.`,
      403,
    );
  }
  const days = args.days === undefined ? 7 : Number(args.days);
  if (!Number.isInteger(days) || days < 1 || days > 30) throw invalidRequest('days must be a whole number from 1 to 30');
  const since = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const events = await db().auditEvent.findMany({
    where: { orgId: caller.orgId, createdAt: { gte: since } },
    orderBy: { id: 'desc' },
    take: 200,
  });
  const lines = events.map((event) => `${event.createdAt.toISOString()} ${event.type}${event.clientId ? ` client=${event.clientId}` : ''}${event.actorPersonId ? ` by=${event.actorPersonId}` : ''}`);
  return {
    description: `Security activity in ${caller.orgName} over the last ${days} day(s)`,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text:
            `Summarize the security activity of the organization "${caller.orgName}" over the last ${days} day(s) for an administrator: ` +
            `which apps were connected or disconnected, by whom, and anything unusual (for example refresh-token reuse). ` +
            `The audit events, newest first:\n${lines.length ? lines.join('\n') : '(no events)'}`,
        },
      },
    ],
  };
}
