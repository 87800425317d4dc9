'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { revokeClientInOrg, revokeOrgGrant } from '@/lib/admin/org-grants';

const id = z.string().min(1).max(2048);

export const revokeGrantAction = orgAction('apps:manage', z.object({ grantId: id }), (admin, { grantId }, { ip }) =>
  revokeOrgGrant(admin, grantId, ip),
);

export const revokeClientAction = orgAction('apps:manage', z.object({ clientId: id }), (admin, { clientId }, { ip }) =>
  revokeClientInOrg(admin, clientId, ip),
);
