// The console's form handlers (server actions) under hostile input: generated arguments for every org and
// instance action, sent with a signed-in owner's (and instance admin's) cookies so that they pass the
// permission check and reach input parsing and the work itself. Every answer must be the action's result
// — `{ ok: true }` or `{ ok: false, error }` with a message a person can act on — never the catch-all
// "Something went wrong" (an unexpected exception), never a 5xx, never a hang.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { fetchWithin, fuzz, hostileString, mutatedObjectText, tallied, total, type Tally, wrongTypeText } from '../helpers/hostile-input';
import { serverActionId } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { expectStillUp, memoryProbe } from '../helpers/server-health';
import { signIn, type CookieJar } from '../helpers/session';

const INPUTS = 1200;
const UNEXPECTED = 'Something went wrong. Nothing was changed; please try again.';

/** Each action with a valid input for the fuzzer to break (ids that exist nowhere: nothing real changes by chance). */
const ORG_ACTIONS: { file: string; name: string; valid: Record<string, unknown> }[] = [
  { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeGrantAction', valid: { grantId: 'no-such-grant' } },
  { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeClientAction', valid: { clientId: 'no-such-client' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'decideClientAction', valid: { clientId: 'no-such-client', decision: 'blocked' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction', valid: { policy: 'open' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'registerClientAction', valid: { name: 'Fuzz', redirectUris: ['https://fuzz.example/cb'] } },
  { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction', valid: { tool: 'whoami', restricted: false } },
  { file: 'app/admin/[org]/plan/actions.ts', name: 'setPlanStatusAction', valid: { status: 'active' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'addMemberAction', valid: { email: 'fuzz@example.test', name: 'Fuzz', role: 'viewer' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'changeRoleAction', valid: { membershipId: 'no-such-membership', role: 'viewer' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'deactivateMemberAction', valid: { membershipId: 'no-such-membership' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'reactivateMemberAction', valid: { membershipId: 'no-such-membership' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'removeMemberAction', valid: { membershipId: 'no-such-membership' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'passwordLinkAction', valid: { membershipId: 'no-such-membership' } },
  { file: 'app/admin/[org]/members/actions.ts', name: 'unlockMemberAction', valid: { membershipId: 'no-such-membership' } },
];
const INSTANCE_ACTIONS: { file: string; name: string; valid: Record<string, unknown> }[] = [
  { file: 'app/admin/instance/actions.ts', name: 'disableClientAction', valid: { clientId: 'no-such-client' } },
  { file: 'app/admin/instance/actions.ts', name: 'enableClientAction', valid: { clientId: 'no-such-client' } },
  { file: 'app/admin/instance/actions.ts', name: 'deleteClientAction', valid: { clientId: 'no-such-client' } },
  { file: 'app/admin/instance/people/actions.ts', name: 'disablePersonAction', valid: { personId: 'no-such-person' } },
  { file: 'app/admin/instance/people/actions.ts', name: 'enablePersonAction', valid: { personId: 'no-such-person' } },
  { file: 'app/admin/instance/organizations/actions.ts', name: 'createOrganizationAction', valid: { name: 'Fuzz Org', slug: 'fuzz-org', ownerEmail: 'fuzz-owner@example.test' } },
];

const orgSlug = fc.oneof({ weight: 6, arbitrary: fc.constant('"acme"') }, { weight: 1, arbitrary: wrongTypeText }, { weight: 1, arbitrary: hostileString.map((text) => JSON.stringify(text)) });

/**
 * React's reply encoding: a string starting with `$` is a reference (`$@1`, `$K2`…), so React's own client
 * sends a literal `$` as `$$`. Hostile values are escaped the same way so that they reach the action;
 * forged references are the framework's protocol, not the console's (the report notes what they do).
 */
const asReactReply = (json: string) => json.replaceAll('"$', '"$$$$');

/** The action and the raw text of its arguments (a JSON array, as React sends plain values). */
const call = fc.oneof(
  fc.constantFrom(...ORG_ACTIONS).chain((action) =>
    fc.tuple(orgSlug, mutatedObjectText(action.valid)).map(([slug, input]) => ({ action, args: asReactReply(`[${slug},${input}]`), page: '/admin/acme' })),
  ),
  fc.constantFrom(...INSTANCE_ACTIONS).chain((action) =>
    mutatedObjectText(action.valid).map((input) => ({ action, args: asReactReply(`[${input}]`), page: '/admin/instance' })),
  ),
);

describe.each([DATABASES.at(-1)!])('console actions under hostile input (%s database)', (database) => {
  let server: RunningServer;
  let owner: CookieJar;

  beforeAll(async () => {
    server = await startServer({ database });
    owner = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
  });
  afterAll(async () => server?.stop());

  it('answers every generated action call with its result or a refusal a person can act on, never a 5xx or a hang', async () => {
    const tally: Tally = {};
    const memory = memoryProbe(server);
    const send = async ({ action, args, page }: { action: { file: string; name: string }; args: string; page: string }) => {
      const response = await fetchWithin(`${server.url}${page}`, {
        method: 'POST',
        headers: { 'next-action': serverActionId(action.file, action.name), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin: server.url, cookie: owner.header() },
        body: args,
      });
      const body = await response.text();
      tallied(tally, response.status);
      const where = `${response.status} for ${action.name}(${args.slice(0, 400)}): ${body.slice(0, 400)}`;
      expect(response.status, where).toBe(200);
      const row = /^1:(.*)$/m.exec(body)?.[1];
      expect(row, where).toBeDefined();
      const result = JSON.parse(row!) as { ok?: unknown; error?: unknown };
      expect(typeof result.ok, where).toBe('boolean');
      if (result.ok === false) {
        expect(typeof result.error, where).toBe('string');
        expect(result.error, where).not.toBe(UNEXPECTED);
      }
    };
    let tried = await fuzz(call, { inputs: INPUTS / 2, parallel: 4 }, send);
    await memory.mark();
    tried += await fuzz(call, { inputs: INPUTS / 2, parallel: 4 }, send);
    await memory.mark();
    console.log(`console actions: ${tried} hostile calls, answers by status ${JSON.stringify(tally)}; ${memory.describe()}`);
    expect(total(tally)).toBe(tried);
    await expectStillUp(server);
    memory.expectFlat();
  }, 180_000);

  // React's reply format lets a payload refer to itself (`$0` is the arguments, `$@0` a promise of them,
  // `$Q0`/`$W0` a Map/Set built from them). Such arguments once sent the action wrapper's input check
  // round a cycle until the process ran out of memory — from a signed-out caller too, since the org slug
  // is checked before the person. Every such call must be answered, and the server must stay up.
  // (Some — a Map or Set of them, a reference to a part that was never sent — fail inside the framework's
  // decoder before any Gatehouse code runs, which answers 500 with an error row on some pages: a known
  // gap, listed in SECURITY.md. They must still be answered. The ones that reach the actions must be
  // refusals.)
  it('answers forged self-referring arguments, signed in or not, and stays up', async () => {
    const reachingActions = ['["$0"]', '["$@0"]', '["acme","$0"]', '["acme","$@0"]', '["acme",{"tool":"$0","restricted":true}]'];
    const refusedByFramework = ['["$Q0"]', '["$W0"]', '["acme",["$1"]]'];
    const forged = [...reachingActions, ...refusedByFramework];
    const action = ORG_ACTIONS.find((candidate) => candidate.name === 'setToolRestrictedAction')!;
    const instanceAction = INSTANCE_ACTIONS[0]!;
    for (const cookie of [owner.header(), null]) {
      for (const [target, page] of [[action, '/admin/acme'], [instanceAction, '/admin/instance']] as const) {
        for (const args of forged) {
          const response = await fetchWithin(`${server.url}${page}`, {
            method: 'POST',
            headers: { 'next-action': serverActionId(target.file, target.name), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin: server.url, ...(cookie ? { cookie } : {}) },
            body: args,
          });
          const body = await response.text();
          const where = `${target.name}(${args}) ${cookie ? 'signed in' : 'signed out'}: ${body.slice(0, 300)}`;
          if (refusedByFramework.includes(args)) expect([200, 500], where).toContain(response.status);
          else expect(response.status, where).toBeLessThan(500);
        }
      }
    }
    await expectStillUp(server);
  }, 120_000);
});
