'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { registerConfidentialClient, setAppPolicy } from '@/lib/admin/org-clients';
import { decideApp } from '@/lib/apps/decisions';

/** Approve or block an app (every registration of it, and for a block every app sharing a redirect with it), or clear the decision. */
export const decideAppAction = orgAction('apps:manage', z.object({ appId: z.string().min(1).max(64), decision: z.enum(['approved', 'blocked', 'none']) }), (admin, { appId, decision }, { ip }) =>
  decideApp(admin, appId, decision, ip),
);

export const setAppPolicyAction = orgAction('apps:manage', z.object({ policy: z.enum(['open', 'approved']) }), (admin, { policy }, { ip }) => setAppPolicy(admin, policy, ip));

const redirectUri = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value), { message: 'Each redirect URI must be an absolute URL.' });

export const registerClientAction = orgAction(
  'clients:register',
  z.object({
    name: z.string().trim().min(1, 'Give the client a name.').max(100, 'The name is too long (at most 100 characters).'),
    redirectUris: z.array(redirectUri).min(1, 'Give at least one redirect URI.').max(10, 'At most 10 redirect URIs.'),
  }),
  (admin, input, { ip }) => registerConfidentialClient(admin, input, ip),
);
