'use server';

import { z } from 'zod';
import { endOtherSessions } from '@/lib/auth/sign-in-sessions';
import { changePassword } from '@/lib/people/accounts';
import { personAction, personFormAction } from '@/lib/server/safe-action';

const field = z.string({ error: 'The form is not valid.' }).max(1024, 'That is too long.').default('');

export const changePasswordAction = personFormAction(z.object({ current: field, next: field, confirm: field }), ({ person, sessionId }, { current, next, confirm }) =>
  changePassword(person.id, sessionId, current, next, confirm),
);

/** Ends one other session (`sessionId`) or, with null, every session but this browser's. */
export const endSessionsAction = personAction(z.string({ error: 'Unknown session.' }).min(1).max(100).nullable(), ({ person, sessionId }, target, { ip }) =>
  endOtherSessions(person.id, sessionId, target, ip),
);
