// In which of a person's organizations a client may be connected (docs/protocol.md §1, §5): an active membership,
// an active plan, and an app policy that lets this client in.
import { db } from '@/lib/db/client';
import type { Role } from '@/lib/generated/prisma/enums';

export type OrgChoice = {
  orgId: string;
  name: string;
  role: Role;
  eligible: boolean;
  /** Why the org cannot be picked, in words for the person. */
  reason: string | null;
  /** The same, for code: the consent screen tells a blocked app apart from the other refusals. */
  refusal: 'plan_inactive' | 'blocked' | 'not_approved' | null;
};

const REASONS = {
  plan_inactive: "This organization's plan is inactive.",
  blocked: 'An admin of this organization blocked this app.',
  not_approved: 'This organization allows only apps an admin approved.',
} as const;

export async function orgChoicesFor(personId: string, clientId: string): Promise<OrgChoice[]> {
  const memberships = await db().membership.findMany({
    where: { personId, status: 'active' },
    include: { org: { include: { clientDecisions: { where: { clientId } } } } },
    orderBy: { org: { name: 'asc' } },
  });
  return memberships.map(({ org, role }) => {
    const decision = org.clientDecisions[0]?.decision;
    const refusal: OrgChoice['refusal'] =
      org.planStatus !== 'active' ? 'plan_inactive' : decision === 'blocked' ? 'blocked' : org.appPolicy === 'approved' && decision !== 'approved' ? 'not_approved' : null;
    const reason = refusal ? REASONS[refusal] : null;
    return { orgId: org.id, name: org.name, role, eligible: refusal === null, reason, refusal };
  });
}
