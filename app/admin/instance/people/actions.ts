'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { disablePerson, enablePerson } from '@/lib/admin/instance-directory';

const person = z.object({ personId: z.string().min(1).max(100) });

export const disablePersonAction = instanceAction(person, (admin, { personId }, { ip }) => disablePerson(admin, personId, ip));

export const enablePersonAction = instanceAction(person, (admin, { personId }, { ip }) => enablePerson(admin, personId, ip));
