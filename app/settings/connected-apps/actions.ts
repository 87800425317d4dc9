'use server';

import { z } from 'zod';
import { revokeConnection } from '@/lib/grants/revoke';
import { personActor } from '@/lib/grants/rules';
import { personAction } from '@/lib/server/safe-action';

export const revokeConnectedApp = personAction(z.string({ error: 'Unknown app.' }).min(1).max(200), async ({ person }, grantId, { ip }) => {
  const outcome = await revokeConnection(personActor(person.id), grantId, ip);
  return outcome.kind === 'unknown' ? { ok: false as const, error: 'This app is not connected to your account.' } : { ok: true as const };
});
