'use server';

import { headers } from 'next/headers';
import { currentPerson } from '@/lib/auth/session';
import { revokeOwnGrant, type RevokeOutcome } from '@/lib/connected-apps/grants';
import { clientAddress } from '@/lib/http/client-address';

export async function revokeConnectedApp(grantId: string): Promise<RevokeOutcome> {
  const person = await currentPerson();
  if (!person) return { ok: false, error: 'Your session has ended: sign in again.' };
  if (typeof grantId !== 'string' || grantId.length > 200) return { ok: false, error: 'Unknown app.' };
  return revokeOwnGrant(person.id, grantId, clientAddress(await headers()));
}
