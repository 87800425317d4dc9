'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { setToolRestricted } from '@/lib/admin/org-policy';

export const setToolRestrictedAction = orgAction('apps:manage', z.object({ tool: z.string().min(1).max(100), restricted: z.boolean() }), (admin, { tool, restricted }, { ip }) =>
  setToolRestricted(admin, tool, restricted, ip),
);
