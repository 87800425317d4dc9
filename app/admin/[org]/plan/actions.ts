'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { setPlanStatus } from '@/lib/admin/org-policy';

export const setPlanStatusAction = orgAction('plan:manage', z.object({ status: z.enum(['active', 'inactive']) }), (admin, { status }, { ip }) => setPlanStatus(admin, status, ip));
