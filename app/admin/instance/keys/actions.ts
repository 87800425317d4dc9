'use server';

import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import { rotateKeysNow } from '@/lib/admin/instance-keys';

export const rotateKeysAction = instanceAction(z.object({}).strict(), (admin, _input, { ip }) => rotateKeysNow(admin, ip));
