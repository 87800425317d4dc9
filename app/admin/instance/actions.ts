'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { deleteInstanceClient, disableClient, enableClient } from '@/lib/admin/instance-clients';

const client = z.object({ clientId: z.string().min(1).max(2048) });

export const disableClientAction = instanceAction(client, (admin, { clientId }, { ip }) => disableClient(admin, clientId, ip));

export const enableClientAction = instanceAction(client, (admin, { clientId }, { ip }) => enableClient(admin, clientId, ip));

export const deleteClientAction = instanceAction(client, (admin, { clientId }, { ip }) => deleteInstanceClient(admin, clientId, ip));
