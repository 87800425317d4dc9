'use server';

import { headers } from 'next/headers';
import { z } from 'zod';
import { clientAddress } from '@/lib/http/client-address';
import { usePasswordLink, type PasswordSet } from '@/lib/people/password-links';

const input = z.object({ token: z.string().max(100), password: z.string().max(1024), confirm: z.string().max(1024) });

/** Public on purpose: the one-time token in the link is the authorization. */
export async function setPasswordAction(value: z.input<typeof input>): Promise<PasswordSet> {
  const parsed = input.safeParse(value);
  if (!parsed.success) return { ok: false, field: 'link', error: 'The request is not valid.' };
  const { token, password, confirm } = parsed.data;
  return usePasswordLink(token, password, confirm, clientAddress(await headers()));
}
