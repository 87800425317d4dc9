// Prompts (docs/protocol.md §6): a prompt that puts the organization's recent security events in front of the model
// and asks for a summary. prompts/get needs mcp:read; a prompt that shows a tool's data meets that
// tool's gates too (an admin's restriction, its scope, the role), and is listed only where it would be
// served (gates.ts).
import { auditEventsPage } from '@/lib/audit/read';
import type { Caller } from './caller';
import { invalidRequest, JSON_RPC, McpError } from './errors';
import { listsToolData, refuseToolData } from './gates';
import type { ToolDefinition } from './tools/definition';
import { readAuditLog } from './tools/read-audit-log';

export const AUDIT_SUMMARY_PROMPT = 'summarize_audit_activity';

type Prompt = {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  /** The tool whose data the prompt shows. */
  showsDataOf: ToolDefinition;
};

const PROMPTS: Prompt[] = [
  {
    name: AUDIT_SUMMARY_PROMPT,
    title: 'Summarize recent security activity',
    description: "Summarizes the organization's audit log over the last few days: new connections, revocations, unusual events.",
    arguments: [{ name: 'days', description: 'How many days back to look (1–30, default 7)', required: false }],
    showsDataOf: readAuditLog,
  },
];

export function listPrompts(caller: Caller) {
  return { prompts: PROMPTS.filter((prompt) => listsToolData(caller, prompt.showsDataOf)).map(({ showsDataOf: _tool, ...published }) => published) };
}

export async function getPrompt(caller: Caller, name: string, args: Record<string, unknown>) {
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (!prompt) throw new McpError(JSON_RPC.INVALID_PARAMS, `Unknown prompt: ${name}`, 200);
  const refused = refuseToolData(caller, prompt.showsDataOf, `The prompt "${prompt.name}"`);
  if (refused) throw refused;
  const days = args.days === undefined ? 7 : Number(args.days);
  if (!Number.isInteger(days) || days < 1 || days > 30) throw invalidRequest('days must be a whole number from 1 to 30');
  const since = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const { rows: events } = await auditEventsPage(caller.orgId, { range: { gte: since } }, {}, 200);
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
