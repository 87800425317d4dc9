// In which of a person's organizations a client may be connected (docs/protocol.md §1, §5): an active membership,
// an active plan, and decisions on the client's app (lib/apps/decisions.ts) that let it in.
import { appStanding, type Block } from '@/lib/apps/decisions';
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
  /** The block that refuses the app here (the org's, or an instance admin's), when refusal is 'blocked'. */
  block: (Block & { everywhere: boolean }) | null;
};

/** What the person is told, by refusal; a block also says when it was put on an app this one shares a redirect with. */
function reasonFor(refusal: NonNullable<OrgChoice['refusal']>, block: OrgChoice['block']): string {
  switch (refusal) {
    case 'plan_inactive':
      return "This organization's plan is inactive.";
    case 'not_approved':
      return 'This organization allows only apps an admin approved.';
    case 'blocked': {
      const who = block?.everywhere ? 'An administrator of this Gatehouse' : 'An admin of this organization';
      return block && block.shared.length > 0 ? `${who} blocked ${block.appName}, which this app shares a redirect with.` : `${who} blocked this app.`;
    }
  }
}

export async function orgChoicesFor(personId: string, clientId: string): Promise<OrgChoice[]> {
  const memberships = await db().membership.findMany({
    where: { personId, status: 'active' },
    include: { org: { select: { id: true, name: true, planStatus: true, appPolicy: true } } },
    orderBy: { org: { name: 'asc' } },
  });
  const standing = await appStanding(
    clientId,
    memberships.map(({ org }) => org.id),
  );
  return memberships.map(({ org, role }) => {
    const inOrg = standing.orgs.get(org.id);
    const block = standing.blockedEverywhere ? { ...standing.blockedEverywhere, everywhere: true } : inOrg?.block ? { ...inOrg.block, everywhere: false } : null;
    const refusal: OrgChoice['refusal'] = org.planStatus !== 'active' ? 'plan_inactive' : block ? 'blocked' : org.appPolicy === 'approved' && !inOrg?.approved ? 'not_approved' : null;
    return { orgId: org.id, name: org.name, role, eligible: refusal === null, reason: refusal ? reasonFor(refusal, block) : null, refusal, block: refusal === 'blocked' ? block : null };
  });
}
