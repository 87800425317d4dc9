'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { notFound } from '@/lib/admin/errors';
import { revokeClientInOrg, revokeConnection } from '@/lib/grants/revoke';
import { memberActor } from '@/lib/grants/rules';

const id = z.string().min(1).max(2048);

export const revokeGrantAction = orgAction('apps:manage', z.object({ grantId: id }), async (admin, { grantId }, { ip }) => {
  const outcome = await revokeConnection(memberActor(admin.personId, admin.org.id, admin), grantId, ip);
  if (outcome.kind === 'unknown') throw notFound('This connection does not exist in this organization.');
});

export const revokeClientAction = orgAction('apps:manage', z.object({ clientId: id }), (admin, { clientId }, { ip }) =>
  revokeClientInOrg(memberActor(admin.personId, admin.org.id, admin), clientId, ip),
);
