'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { approveRequest, declineRequest } from '@/lib/apps/requests';

const request = z.object({ requestId: z.string().min(1).max(64) });

/** Approve a member's request: the app is approved for the org, which answers every pending request for it. */
export const approveRequestAction = orgAction('apps:manage', request, (admin, { requestId }, { ip }) => approveRequest(admin, requestId, ip));

/** Decline a member's request; the app stays as it was. */
export const declineRequestAction = orgAction('apps:manage', request, (admin, { requestId }, { ip }) => declineRequest(admin, requestId, ip));
