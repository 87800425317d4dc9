// The outcome categories the console charts and filters the call log by, as one table over the outcome
// values /mcp writes (lib/mcp/endpoint.ts, dispatch.ts, refusals.ts):
//   ok, notification                    → the call was served
//   refused_scope                       → a tool refused in band: the connection lacks the scope
//   refused_role, restricted            → a tool refused in band: the role, or an admin's restriction
//   rate_limited                        → 429, the grant's budget is spent
//   unauthorized                        → 401 (token missing, bad, expired or revoked)
//   forbidden                           → 403 (Origin, scope step-up of reads and lists, membership, plan)
//   anything else                       → other errors: invalid_arguments, unknown_tool, tool_error,
//                                         method_not_found, bad_request, jsonrpc_error, error, aborted
//                                         (the client went away mid-body), unavailable
// A request refused before its grant is known (no valid token, foreign Origin, wrong method) carries
// no org: it is counted in the server log, not written (lib/audit/call-log.ts).
import { Prisma } from '@/lib/generated/prisma/client';

export const OUTCOME_CATEGORIES = [
  { key: 'ok', label: 'OK', outcomes: ['ok', 'notification'] },
  { key: 'refused_scope', label: 'Refused: scope', outcomes: ['refused_scope'] },
  { key: 'refused_role', label: 'Refused: role or restriction', outcomes: ['refused_role', 'restricted'] },
  { key: 'rate_limited', label: 'Rate-limited', outcomes: ['rate_limited'] },
  { key: 'unauthorized', label: '401 Unauthorized', outcomes: ['unauthorized'] },
  { key: 'forbidden', label: '403 Forbidden', outcomes: ['forbidden'] },
  { key: 'other', label: 'Other errors', outcomes: [] },
] as const satisfies readonly { key: string; label: string; outcomes: readonly string[] }[];

export type OutcomeCategory = (typeof OUTCOME_CATEGORIES)[number]['key'];

export const OUTCOME_CATEGORY_KEYS = OUTCOME_CATEGORIES.map((category) => category.key) as [OutcomeCategory, ...OutcomeCategory[]];

const NAMED = OUTCOME_CATEGORIES.filter((category) => category.outcomes.length > 0);
const NAMED_OUTCOMES: string[] = NAMED.flatMap((category) => [...category.outcomes]);

export function outcomeCategory(outcome: string): OutcomeCategory {
  return NAMED.find((category) => (category.outcomes as readonly string[]).includes(outcome))?.key ?? 'other';
}

export function outcomeCategoryLabel(key: OutcomeCategory): string {
  return OUTCOME_CATEGORIES.find((category) => category.key === key)!.label;
}

/** The call-log condition for one category. */
export function outcomeCondition(key: OutcomeCategory): Prisma.McpCallWhereInput {
  if (key === 'other') return { outcome: { notIn: NAMED_OUTCOMES } };
  return { outcome: { in: [...OUTCOME_CATEGORIES.find((category) => category.key === key)!.outcomes] } };
}

/** The same table as an SQL expression over `outcome`, for aggregations. */
export function outcomeCategorySql(): Prisma.Sql {
  const branches = NAMED.map((category) => Prisma.sql`WHEN outcome IN (${Prisma.join([...category.outcomes])}) THEN ${category.key}`);
  return Prisma.sql`CASE ${Prisma.join(branches, ' ')} ELSE 'other' END`;
}
