'use server';

import { z } from 'zod';
import { orgAction } from '@/lib/admin/action';
import { addMember } from '@/lib/members/add';
import { changeMemberRole, removeMember, setMemberStatus, unlockMember } from '@/lib/members/change';
import { createMemberPasswordLink } from '@/lib/members/password-link';

const role = z.enum(['owner', 'admin', 'member', 'viewer'], 'Choose a role.');
const membership = z.object({ membershipId: z.string().min(1).max(100) });

export const addMemberAction = orgAction(
  'members:manage',
  z.object({
    email: z.string().trim().max(254).pipe(z.email('Enter an email address.')),
    role,
    name: z
      .string()
      .trim()
      .max(100, 'A name is at most 100 characters.')
      .optional()
      .transform((name) => name || undefined),
  }),
  (admin, input, { ip }) => addMember(admin, input, ip),
);

export const changeRoleAction = orgAction('members:manage', membership.extend({ role }), (admin, { membershipId, role }, { ip }) => changeMemberRole(admin, membershipId, role, ip));

export const deactivateMemberAction = orgAction('members:manage', membership, (admin, { membershipId }, { ip }) => setMemberStatus(admin, membershipId, 'deactivated', ip));

export const reactivateMemberAction = orgAction('members:manage', membership, (admin, { membershipId }, { ip }) => setMemberStatus(admin, membershipId, 'active', ip));

export const removeMemberAction = orgAction('members:manage', membership, (admin, { membershipId }, { ip }) => removeMember(admin, membershipId, ip));

export const passwordLinkAction = orgAction('members:manage', membership, (admin, { membershipId }, { ip }) => createMemberPasswordLink(admin, membershipId, ip));

export const unlockMemberAction = orgAction('members:manage', membership, (admin, { membershipId }, { ip }) => unlockMember(admin, membershipId, ip));
