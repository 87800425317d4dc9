'use server';

import { currentPerson } from '@/lib/auth/session';
import { changePassword, type PasswordChange } from '@/lib/people/accounts';

export async function changePasswordAction(_previous: PasswordChange | null, form: FormData): Promise<PasswordChange> {
  const person = await currentPerson();
  if (!person) return { ok: false, field: 'current', error: 'Your session has ended: sign in again.' };
  const field = (name: string) => String(form.get(name) ?? '').slice(0, 1024);
  return changePassword(person.id, field('current'), field('next'), field('confirm'));
}
