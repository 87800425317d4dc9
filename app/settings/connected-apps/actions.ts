'use server';

import { z } from 'zod';
import { revokeOwnGrant } from '@/lib/connected-apps/grants';
import { personAction } from '@/lib/server/safe-action';

export const revokeConnectedApp = personAction(z.string({ error: 'Unknown app.' }).min(1).max(200), ({ person }, grantId, { ip }) =>
  revokeOwnGrant(person.id, grantId, ip),
);
