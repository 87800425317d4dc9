'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { decideClient, registerConfidentialClient, setAppPolicy } from '@/lib/admin/org-clients';

export const decideClientAction = orgAction(
  'apps:manage',
  z.object({ clientId: z.string().min(1).max(2048), decision: z.enum(['approved', 'blocked', 'none']) }),
  (admin, { clientId, decision }, { ip }) => decideClient(admin, clientId, decision, ip),
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
