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
};

export async function orgChoicesFor(personId: string, clientId: string): Promise<OrgChoice[]> {
  const memberships = await db().membership.findMany({
    where: { personId, status: 'active' },
    include: { org: { include: { clientDecisions: { where: { clientId } } } } },
    orderBy: { org: { name: 'asc' } },
  });
  return memberships.map(({ org, role }) => {
    const decision = org.clientDecisions[0]?.decision;
    let reason: string | null = null;
    if (org.planStatus !== 'active') reason = "This organization's plan is inactive.";
    else if (decision === 'blocked') reason = 'An admin of this organization blocked this app.';
    else if (org.appPolicy === 'approved' && decision !== 'approved') {
      reason = 'This organization allows only apps an admin approved.';
    }
    return { orgId: org.id, name: org.name, role, eligible: reason === null, reason };
  });
}
