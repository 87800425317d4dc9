'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { createOrganization } from '@/lib/admin/instance-directory';

const newOrganization = z.object({
  name: z.string().trim().min(1, 'Give the organization a name.').max(100, 'The name is too long (at most 100 characters).'),
  slug: z.string().trim().max(63, 'The address is too long (at most 63 characters).').optional(),
  ownerEmail: z.string().trim().min(3, 'Give the owner’s email.').max(320),
});

export const createOrganizationAction = instanceAction(newOrganization, (admin, input, { ip }) => createOrganization(admin, input, ip));
