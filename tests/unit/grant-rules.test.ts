// lib/grants/rules.ts: the one rule of who may revoke a grant, which the settings page, the console and
// revoke_connected_app all apply.
import { describe, expect, it } from 'vitest';
import { permissionsOf } from '@/lib/auth/permissions';
import { mayRevoke, mayRevokeAllInOrg, memberActor, personActor, revokeReason } from '@/lib/grants/rules';

const own = { personId: 'me', orgId: 'acme' };
const colleague = { personId: 'them', orgId: 'acme' };
const elsewhere = { personId: 'them', orgId: 'globex' };

describe('who may revoke a grant', () => {
  it('lets a person revoke their own grants in any org, and no one else’s', () => {
    const me = personActor('me');
    expect([mayRevoke(me, own), mayRevoke(me, { personId: 'me', orgId: 'globex' }), mayRevoke(me, colleague)]).toEqual([true, true, false]);
    expect(mayRevokeAllInOrg(me)).toBe(false);
  });

  it('lets a member revoke their own grants in the org they act in, and others’ only when they manage apps there', () => {
    const member = memberActor('me', 'acme', { permissions: permissionsOf('member') });
    expect([mayRevoke(member, own), mayRevoke(member, colleague), mayRevoke(member, elsewhere)]).toEqual([true, false, false]);
    const owner = memberActor('me', 'acme', { permissions: permissionsOf('owner') });
    expect([mayRevoke(owner, own), mayRevoke(owner, colleague), mayRevoke(owner, elsewhere)]).toEqual([true, true, false]);
    expect([mayRevokeAllInOrg(member), mayRevokeAllInOrg(owner)]).toEqual([false, true]);
  });

  it('records one’s own grant as the person’s decision and anyone else’s as the admin’s', () => {
    const owner = memberActor('me', 'acme', { permissions: permissionsOf('owner') });
    expect([revokeReason(owner, own), revokeReason(owner, colleague), revokeReason(personActor('me'), own)]).toEqual(['person', 'org_admin', 'person']);
  });
});
