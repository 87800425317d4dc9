'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { switchOfferedConnector } from '@/lib/connectors/org-view';

export const setConnectorEnabledAction = orgAction('apps:manage', z.object({ slug: z.string().min(1).max(100), enabled: z.boolean() }), (admin, { slug, enabled }, { ip }) =>
  switchOfferedConnector(admin.org, slug, enabled, { actorPersonId: admin.personId, ip, via: 'console' }),
);
