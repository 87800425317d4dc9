// The outcome categories the console charts and filters the call log by: one table (CATEGORY_OF) over
// the outcomes /mcp records (CALL_OUTCOMES in lib/mcp/call-outcome.ts), which must name each of them.
// A request refused before its grant is known (no valid token, foreign Origin, wrong method) carries no
// org: it is counted in the server log, not written (lib/audit/call-log.ts). A 403 after the grant was
// found (removed member, inactive plan) does carry one (lib/mcp/caller.ts) and is written.
import { Prisma } from '@/lib/generated/prisma/client';
import { CALL_OUTCOMES, type CallOutcome } from '@/lib/mcp/call-outcome';

const CATEGORIES = [
  { key: 'ok', label: 'OK' },
  { key: 'refused_scope', label: 'Refused: scope' },
  { key: 'refused_role', label: 'Refused: role or restriction' },
  { key: 'rate_limited', label: 'Rate-limited' },
  { key: 'unauthorized', label: '401 Unauthorized' },
  { key: 'forbidden', label: '403 Forbidden' },
  { key: 'connector', label: 'Connector failures' },
  { key: 'other', label: 'Other errors' },
] as const;

/** The category of every outcome /mcp records: a new outcome without one does not compile. */
const CATEGORY_OF = {
  ok: 'ok',
  notification: 'ok',
  refused_scope: 'refused_scope',
  refused_role: 'refused_role',
  restricted: 'refused_role',
  rate_limited: 'rate_limited',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  invalid_arguments: 'other',
  unknown_tool: 'other',
  tool_error: 'other',
  held_for_review: 'connector',
  upstream_error: 'connector',
  upstream_timeout: 'connector',
  circuit_open: 'connector',
  method_not_found: 'other',
  bad_request: 'other',
  jsonrpc_error: 'other',
  unavailable: 'other',
  error: 'other',
  aborted: 'other',
} as const satisfies Record<CallOutcome, (typeof CATEGORIES)[number]['key']>;

/** The categories in display order, each with the outcomes it counts ("other" also counts unknown values). */
export const OUTCOME_CATEGORIES = CATEGORIES.map((category) => ({
  ...category,
  outcomes: CALL_OUTCOMES.filter((outcome) => CATEGORY_OF[outcome] === category.key && category.key !== 'other'),
}));

export type OutcomeCategory = (typeof CATEGORIES)[number]['key'];

export const OUTCOME_CATEGORY_KEYS = OUTCOME_CATEGORIES.map((category) => category.key) as [OutcomeCategory, ...OutcomeCategory[]];

const NAMED = OUTCOME_CATEGORIES.filter((category) => category.outcomes.length > 0);
const NAMED_OUTCOMES: string[] = NAMED.flatMap((category) => [...category.outcomes]);

/** The category of a recorded outcome; a value written by an older version counts as "other". */
export function outcomeCategory(outcome: string): OutcomeCategory {
  return Object.hasOwn(CATEGORY_OF, outcome) ? CATEGORY_OF[outcome as CallOutcome] : 'other';
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
