'use server';

import { z } from 'zod';
import { usePasswordLink } from '@/lib/people/password-links';
import { tokenFormAction } from '@/lib/server/safe-action';

/** Public on purpose: the one-time token in the link, sent as a form field, is the authorization. */
export const setPasswordAction = tokenFormAction(
  z.object({ token: z.string().max(100), password: z.string().max(1024).default(''), confirm: z.string().max(1024).default('') }),
  ({ token, password, confirm }, { ip }) => usePasswordLink(token, password, confirm, ip),
);
