'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { deleteInstanceClient, disableClient, enableClient } from '@/lib/admin/instance-clients';
import { blockAppEverywhere } from '@/lib/apps/decisions';

const client = z.object({ clientId: z.string().min(1).max(2048) });

export const disableClientAction = instanceAction(client, (admin, { clientId }, { ip }) => disableClient(admin, clientId, ip));

export const enableClientAction = instanceAction(client, (admin, { clientId }, { ip }) => enableClient(admin, clientId, ip));

export const deleteClientAction = instanceAction(client, (admin, { clientId }, { ip }) => deleteInstanceClient(admin, clientId, ip));

/** Block an app on the whole installation (it and every app sharing a redirect with it), or lift that block. */
export const blockAppEverywhereAction = instanceAction(z.object({ appId: z.string().min(1).max(64), blocked: z.boolean() }), (admin, { appId, blocked }, { ip }) =>
  blockAppEverywhere(admin, appId, blocked, ip),
);
