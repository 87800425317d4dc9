// The console's form handlers (server actions) under hostile input: generated arguments for every org and
// instance action, and for the settings and set-password actions, sent with a signed-in owner's (and
// instance admin's) cookies so that they pass the permission check and reach input parsing and the work
// itself. Every answer must be the action's result
// — `{ ok: true }` or `{ ok: false, error }` with a message a person can act on — never the catch-all
// "Something went wrong" (an unexpected exception), never a 5xx, never a hang.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { deepNestingText, fetchWithin, fuzz, hostileJsonText, hostileString, mutatedObjectText, randomBytes, tallied, total, type Tally, wrongTypeText } from '../helpers/hostile-input';
import { inspectDatabase } from '../helpers/inspect';
import { callServerAction, serverActionId } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { expectStillUp, memoryProbe } from '../helpers/server-health';
import { signIn, type CookieJar } from '../helpers/session';
import { echoTool, startUpstream } from '../helpers/upstream-mcp';

const INPUTS = 1200;
const RAW_INPUTS = Number(process.env.FUZZ_RAW_INPUTS ?? 600);
const UNEXPECTED = 'Something went wrong. Nothing was changed; please try again.';

const CONNECTORS = 'app/admin/instance/connectors/actions.ts';
const CLOSED_PORT = 'http://127.0.0.1:1/mcp';
const NEW_CONNECTOR = { slug: 'fuzz', url: CLOSED_PORT, name: 'Fuzz', description: '', timeoutSeconds: 5 };
const CLIENT_CREDENTIALS = { kind: 'client_credentials', tokenUrl: 'http://127.0.0.1:1/token', clientId: 'fuzz', clientSecret: 'fuzz', scope: '', resource: '', clientAuth: 'client_secret_basic' };

/** Each action with a valid input for the fuzzer to break (ids that exist nowhere: nothing real changes by chance). */
const ORG_ACTIONS: { file: string; name: string; valid: Record<string, unknown> }[] = [
  { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeGrantAction', valid: { grantId: 'no-such-grant' } },
  { file: 'app/admin/[org]/connected-apps/actions.ts', name: 'revokeClientAction', valid: { clientId: 'no-such-client' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'decideAppAction', valid: { appId: 'no-such-app', decision: 'blocked' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'setAppPolicyAction', valid: { policy: 'open' } },
  { file: 'app/admin/[org]/clients/actions.ts', name: 'registerClientAction', valid: { name: 'Fuzz', redirectUris: ['https://fuzz.example/cb'] } },
  // A loopback address: refused by the SSRF protection at once, whatever the fuzzer does to the rest.
  { file: 'app/admin/[org]/clients/approve/actions.ts', name: 'approveDocumentAction', valid: { url: 'https://127.0.0.1/fuzz-client.json' } },
  { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'approveRequestAction', valid: { requestId: 'no-such-request' } },
  { file: 'app/admin/[org]/clients/requests/actions.ts', name: 'declineRequestAction', valid: { requestId: 'no-such-request' } },
  { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction', valid: { tool: 'whoami', restricted: false } },
  { file: 'app/admin/[org]/connectors/actions.ts', name: 'setConnectorEnabledAction', valid: { slug: 'no-such-connector', enabled: true } },
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
  // The held-tools review: a connector that exists nowhere, so that whatever passes parsing reaches the lookup and is refused there.
  { file: 'app/admin/instance/connectors/[slug]/tools/actions.ts', name: 'approveHeldToolsAction', valid: { slug: 'no-such-connector', decisions: [{ tool: 'search', heldHash: 'a'.repeat(64) }] } },
  { file: 'app/admin/instance/connectors/[slug]/tools/actions.ts', name: 'keepHoldingAction', valid: { slug: 'no-such-connector', tool: 'search', heldHash: 'a'.repeat(64) } },
  { file: 'app/admin/instance/connectors/[slug]/tools/actions.ts', name: 'setToolScopeAction', valid: { slug: 'no-such-connector', tool: 'search', scope: 'mcp:write', confirmLowering: false } },
  // A port nothing listens on: the catalog read fails at once, so nothing is ever added by chance.
  ...['testConnectionAction', 'addConnectorAction'].map((name) => ({ file: CONNECTORS, name, valid: { ...NEW_CONNECTOR, credential: { kind: 'headers', headers: 'X-Api-Key: fuzz' } } })),
  { file: CONNECTORS, name: 'addConnectorAction', valid: { ...NEW_CONNECTOR, credential: CLIENT_CREDENTIALS } },
  { file: CONNECTORS, name: 'updateConnectorAction', valid: { slug: 'no-such-connector', name: 'Fuzz', description: '', url: CLOSED_PORT, timeoutSeconds: 5 } },
  { file: CONNECTORS, name: 'replaceCredentialAction', valid: { slug: 'no-such-connector', credential: { kind: 'client_secret', clientSecret: 'fuzz' } } },
  { file: CONNECTORS, name: 'replaceCredentialAction', valid: { slug: 'no-such-connector', credential: CLIENT_CREDENTIALS } },
  { file: CONNECTORS, name: 'refreshConnectorAction', valid: { slug: 'no-such-connector' } },
  { file: CONNECTORS, name: 'setConnectorStatusAction', valid: { slug: 'no-such-connector', status: 'disabled' } },
  { file: CONNECTORS, name: 'offerConnectorAction', valid: { slug: 'no-such-connector', all: false, orgs: ['acme'] } },
  { file: CONNECTORS, name: 'removeConnectorAction', valid: { slug: 'no-such-connector', confirm: 'no-such-connector' } },
];

/** The signed-in person's own actions and the one-time-link action: one argument, or a form. */
const PERSON_ACTIONS: { file: string; name: string; page: string; valid: string }[] = [
  { file: 'app/settings/account/actions.ts', name: 'endSessionsAction', page: '/settings/account', valid: '"no-such-session"' },
  { file: 'app/settings/connected-apps/actions.ts', name: 'revokeConnectedApp', page: '/settings/connected-apps', valid: '"no-such-grant"' },
];
const FORM_ACTIONS: { file: string; name: string; page: string; valid: Record<string, unknown> }[] = [
  { file: 'app/settings/account/actions.ts', name: 'changePasswordAction', page: '/settings/account', valid: { current: 'wrong', next: 'long-enough-password', confirm: 'long-enough-password' } },
  { file: 'app/set-password/[token]/actions.ts', name: 'setPasswordAction', page: '/', valid: { token: 'A'.repeat(43), password: 'long-enough-password', confirm: 'long-enough-password' } },
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
  fc
    .constantFrom(...ORG_ACTIONS)
    .chain((action) => fc.tuple(orgSlug, mutatedObjectText(action.valid)).map(([slug, input]) => ({ action, args: asReactReply(`[${slug},${input}]`), page: '/admin/acme' }))),
  fc.constantFrom(...INSTANCE_ACTIONS).chain((action) => mutatedObjectText(action.valid).map((input) => ({ action, args: asReactReply(`[${input}]`), page: '/admin/instance' }))),
  fc.constantFrom(...PERSON_ACTIONS).chain((action) =>
    fc
      .oneof(
        fc.constant(action.valid),
        wrongTypeText,
        hostileString.map((text) => JSON.stringify(text)),
      )
      .map((input) => ({ action, args: asReactReply(`[${input}]`), page: action.page })),
  ),
  // A forged call sends anything where the form's FormData belongs.
  fc.constantFrom(...FORM_ACTIONS).chain((action) => fc.oneof(mutatedObjectText(action.valid), wrongTypeText).map((input) => ({ action, args: asReactReply(`[null,${input}]`), page: action.page }))),
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
      // Rows of the reply are separated by \n only: a result may carry U+2028 or U+2029 unescaped (JSON
      // allows them), which a regular expression's . and $ would take for line ends.
      const row = body
        .split('\n')
        .find((line) => line.startsWith('1:'))
        ?.slice(2);
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

  // The connector forms take URLs, header lines and client credentials: against a real upstream (so that
  // only the checks can refuse), each hostile value is refused in words and nothing is stored.
  it('refuses hostile connector input in words, before any upstream is read, and stores nothing', async () => {
    const upstream = await startUpstream({ stateful: false, tools: [echoTool('ping')] });
    try {
      const base = { slug: 'hostile', url: upstream.url, name: 'Hostile', description: '', timeoutSeconds: 5, credential: { kind: 'none' } };
      const headers = (text: string) => ({ ...base, credential: { kind: 'headers', headers: text } });
      const credentials = (fields: Record<string, string>) => ({ ...base, credential: { ...CLIENT_CREDENTIALS, tokenUrl: 'https://auth.example/token', ...fields } });
      const hostile = [
        { ...base, slug: 'a_b' },
        { ...base, slug: '../globex' },
        { ...base, slug: 'Ünïcode' },
        { ...base, url: 'javascript:alert(1)' },
        { ...base, url: `http://user:password@127.0.0.1:${upstream.port}/mcp` },
        { ...base, url: `${upstream.url}#fragment` },
        { ...base, url: 'file:///etc/passwd' },
        { ...base, name: 'x'.repeat(101) },
        { ...base, name: 'nul\u0000name' },
        { ...base, description: 'd'.repeat(1001) },
        { ...base, timeoutSeconds: -1 },
        { ...base, timeoutSeconds: 1e12 },
        { ...base, timeoutSeconds: 1.5 },
        { ...base, timeoutSeconds: '30' },
        headers('X-Api-Key: a\r\nHost: evil.example'),
        headers('Cookie: session=stolen'),
        headers('Gatehouse-Identity: forged'),
        headers('X-Api-Key: é'),
        headers('X-Api-Key: one\nx-api-key: two'),
        headers('Bare-token-without-a-colon'),
        credentials({ tokenUrl: 'file:///etc/passwd' }),
        credentials({ tokenUrl: 'https://user:pw@auth.example/token' }),
        credentials({ clientId: '' }),
        credentials({ clientSecret: 'line\u0001break' }),
        credentials({ scope: 'a  b' }),
        credentials({ resource: 'not a uri' }),
        { ...base, credential: { kind: 'headers', headers: 'X-A: b', clientId: 'both' } },
        { ...base, credential: { kind: 'certificate' } },
      ];
      for (const input of hostile) {
        for (const name of ['testConnectionAction', 'addConnectorAction']) {
          const call = await callServerAction(server.url, owner, { file: CONNECTORS, name }, [input], '/admin/instance/connectors');
          const where = `${name}(${JSON.stringify(input).slice(0, 200)}): ${call.body.slice(0, 300)}`;
          expect(call.status, where).toBe(200);
          expect(call.result, where).toMatchObject({ ok: false, error: expect.any(String) });
          expect((call.result as { error: string }).error, where).not.toBe(UNEXPECTED);
        }
      }
      expect(upstream.log, 'no hostile input reached the upstream').toEqual([]);
      // The control: the same input without the hostile value is read from the upstream (and, tested only, not stored).
      const control = await callServerAction(server.url, owner, { file: CONNECTORS, name: 'testConnectionAction' }, [base], '/admin/instance/connectors');
      expect(control.result).toMatchObject({ ok: true, value: { tools: [{ name: 'ping' }] } });
      let connectors: unknown[] = [];
      ({ server, result: connectors } = await inspectDatabase(server, (query) => query(`SELECT slug FROM connectors`)));
      owner = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
      expect(connectors).toEqual([]);
    } finally {
      await upstream.stop();
    }
  }, 120_000);

  // React's reply format lets a payload refer to itself (`$0` is the arguments, `$@0` a promise of them,
  // `$Q0`/`$W0` a Map/Set built from them) or to parts never sent. Such arguments once sent the action
  // wrapper's input check round a cycle until the process ran out of memory (from a signed-out caller too),
  // and others failed inside the framework's decoder with a 500. The proxy now refuses every payload that
  // React's client would not send, before it is decoded: 400, signed in or not, on every page, whether the
  // call comes as JSON text, as a multipart call, or as a form posted before its script loaded.
  // The signed-in person's own actions (settings) and the public one-time-token action go through the
  // same kind of wrapper as the console's: arguments of the wrong type, NUL, or a FormData that is not one
  // get a refusal in words, never an exception (a 500).
  it('answers the settings and set-password actions with a refusal for NUL, wrong types and non-FormData arguments', async () => {
    const SETTINGS = [
      { file: 'app/settings/account/actions.ts', name: 'endSessionsAction', page: '/settings/account', args: ['"a\\u0000b"', '{"x":1}', '5', '["$$x"]', 'true'] },
      { file: 'app/settings/connected-apps/actions.ts', name: 'revokeConnectedApp', page: '/settings/connected-apps', args: ['"\\u0000"', '"g\\u0000"', '{}', '12', 'null', '"\\ud800"'] },
      {
        file: 'app/settings/account/actions.ts',
        name: 'changePasswordAction',
        page: '/settings/account',
        args: ['null,"current=x"', 'null,{"current":"x","next":"y","confirm":"y"}', 'null', 'null,5', 'null,null'],
      },
      { file: 'app/set-password/[token]/actions.ts', name: 'setPasswordAction', page: '/', args: ['{"token":"\\u0000","password":"x","confirm":"x"}', '"x"', '5', '{"token":["x"]}'] },
    ];
    const expectRefusal = async (response: Response, where: string) => {
      const body = await response.text();
      expect(response.status, `${where}: ${body.slice(0, 300)}`).toBe(200);
      const row = /^1:(.*)$/m.exec(body)?.[1];
      expect(row, `${where}: ${body.slice(0, 300)}`).toBeDefined();
      const result = JSON.parse(row!) as { ok?: unknown; error?: unknown };
      expect(result.ok, where).toBe(false);
      expect(typeof result.error, where).toBe('string');
      expect(result.error, where).not.toBe(UNEXPECTED);
      return result.error as string;
    };
    const headers = (id: string) => ({ 'next-action': id, accept: 'text/x-component', origin: server.url, cookie: owner.header() });
    for (const action of SETTINGS) {
      const id = serverActionId(action.file, action.name);
      for (const args of [...action.args, '']) {
        const response = await fetchWithin(`${server.url}${action.page}`, { method: 'POST', headers: { ...headers(id), 'content-type': 'text/plain;charset=UTF-8' }, body: `[${args}]` });
        await expectRefusal(response, `${action.name}(${args})`);
      }
    }
    // The password form as React sends it (a FormData argument), with NUL in its fields.
    const changePassword = serverActionId('app/settings/account/actions.ts', 'changePasswordAction');
    for (const [field, value] of [
      ['current', 'a\u0000'],
      ['next', 'long-enough-password\u0000'],
      ['confirm', '\u0000'],
    ] as const) {
      const form = new FormData();
      for (const name of ['current', 'next', 'confirm']) form.append(`_1_${name}`, name === field ? value : 'long-enough-password');
      form.append('0', '["$undefined","$K1"]');
      const response = await fetchWithin(`${server.url}/settings/account`, { method: 'POST', headers: headers(changePassword), body: form });
      expect(await expectRefusal(response, `changePasswordAction with NUL in ${field}`)).toMatch(/cannot be saved/);
    }
    await expectStillUp(server);
  }, 60_000);

  it('refuses forged references with a 400 before they are decoded, signed in or not, and stays up', async () => {
    const forged = [
      '["$0"]',
      '["$@0"]',
      '["acme","$0"]',
      '["acme","$@0"]',
      '["acme",{"tool":"$0","restricted":true}]',
      '["$Q0"]',
      '["$W0"]',
      '["acme",["$1"]]',
      '["acme","$h0"]',
      '["$T"]',
      '["acme","$0:0:0"]',
      '["acme","$K1"]',
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
      '["acme",',
      '',
    ];
    const action = ORG_ACTIONS.find((candidate) => candidate.name === 'setToolRestrictedAction')!;
    const actionId = serverActionId(action.file, action.name);
    const instanceId = serverActionId(INSTANCE_ACTIONS[0]!.file, INSTANCE_ACTIONS[0]!.name);
    const expectRefused = async (response: Response, where: string) => {
      const body = await response.text();
      expect(response.status, `${where}: ${body.slice(0, 300)}`).toBe(400);
      expect(JSON.parse(body), where).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/^Malformed server action request: /) });
    };
    for (const cookie of [owner.header(), null]) {
      const who = cookie ? 'signed in' : 'signed out';
      const headers = { origin: server.url, accept: 'text/x-component', ...(cookie ? { cookie } : {}) };
      for (const [id, page] of [
        [actionId, '/admin/acme'],
        [instanceId, '/admin/instance'],
        [actionId, '/settings/account'],
        [actionId, '/'],
      ] as const) {
        for (const args of forged) {
          const response = await fetchWithin(`${server.url}${page}`, {
            method: 'POST',
            headers: { ...headers, 'next-action': id, 'content-type': 'text/plain;charset=UTF-8' },
            body: args,
          });
          await expectRefused(response, `${page} ${args.slice(0, 40)} ${who}`);
        }
        // The same as a multipart call: its parts may point at each other, but only forward.
        for (const parts of [{ 0: '["$1"]', 1: '["$@1"]' }, { 0: '["acme","$K1","$@0"]' }, { 0: '["$@2"]', 2: '["$0"]' }, { 1: '[]' }]) {
          const form = new FormData();
          for (const [name, text] of Object.entries(parts)) form.append(name, text);
          const response = await fetchWithin(`${server.url}${page}`, { method: 'POST', headers: { ...headers, 'next-action': id }, body: form });
          await expectRefused(response, `${page} multipart ${JSON.stringify(parts)} ${who}`);
        }
        // A form posted without its script: the bound arguments of `$ACTION_REF_1` refer to themselves.
        const form = new FormData();
        form.append('$ACTION_REF_1', '');
        form.append('$ACTION_1:0', JSON.stringify({ id, bound: '$@0' }));
        const response = await fetchWithin(`${server.url}${page}`, { method: 'POST', headers, body: form });
        await expectRefused(response, `${page} form without script ${who}`);
      }
    }
    await expectStillUp(server);
  }, 120_000);

  it('answers raw hostile payloads (bytes, deep nesting, unescaped JSON, forged parts, bodies and field counts past their limits) with a refusal, never a 5xx or a hang', async () => {
    const tally: Tally = {};
    const memory = memoryProbe(server);
    const ids = [...ORG_ACTIONS, ...INSTANCE_ACTIONS, ...PERSON_ACTIONS, ...FORM_ACTIONS].map((action) => serverActionId(action.file, action.name));
    const text = fc.oneof(
      { weight: 4, arbitrary: deepNestingText },
      { weight: 4, arbitrary: hostileJsonText },
      { weight: 4, arbitrary: fc.tuple(orgSlug, wrongTypeText).map(([slug, input]) => `[${slug},${input}]`) },
      {
        weight: 4,
        arbitrary: fc
          .array(fc.constantFrom('$0', '$@1', '$Q1', '$W2', '$K1', '$1:a', '$T', '$h1', '$undefined', '$n9', '$D1', '$$x'), { minLength: 1, maxLength: 4 })
          .map((refs) => JSON.stringify(['acme', ...refs])),
      },
      // Around the 1,000,000-byte body limit and the framework's 1 MiB: just under it reaches the action's
      // checks (and React's decoder, which refuses more than 1,000,000 slots), just over it gets 413.
      { weight: 1, arbitrary: fc.integer({ min: 1_000_000 - 2048, max: 1024 * 1024 + 4096 }).map((length) => JSON.stringify(['acme', 'a'.repeat(length)])) },
    );
    // A call as JSON text or as multipart (numbered parts and FormData entries), or a form posted without
    // its script (bound arguments under `$ACTION_REF_1`, no Next-Action header); some past the size limits.
    const body = fc.oneof(
      fc.oneof(randomBytes, text).map((payload) => ({ kind: 'text' as const, payload })),
      fc.array(fc.tuple(fc.constantFrom('0', '1', '2', '10', '1_name', '01'), text), { minLength: 1, maxLength: 4 }).map((parts) => ({ kind: 'multipart' as const, parts })),
      // Around the 1,000-field limit.
      fc.integer({ min: 990, max: 1_020 }).map((fields) => ({
        kind: 'multipart' as const,
        parts: [['0', '["acme","$K1"]'] as [string, string], ...Array.from({ length: fields }, (_, index) => [`1_f${index}`, 'x'] as [string, string])],
      })),
      fc.tuple(fc.option(text), fc.constantFrom('$@1', '$1', '$@0', 'null', '5', '$Q1')).map(([bound, reference]) => ({ kind: 'form' as const, bound, reference })),
    );
    const payload = fc.record({ id: fc.constantFrom(...ids), page: fc.constantFrom('/admin/acme', '/admin/instance', '/settings/account', '/'), body });
    type Payload = typeof payload extends fc.Arbitrary<infer T> ? T : never;
    const request = ({ id, body }: Payload): RequestInit => {
      const headers: Record<string, string> = { accept: 'text/x-component', origin: server.url, cookie: owner.header() };
      if (body.kind === 'text') return { method: 'POST', headers: { ...headers, 'next-action': id, 'content-type': 'text/plain;charset=UTF-8' }, body: body.payload };
      const form = new FormData();
      if (body.kind === 'multipart') {
        for (const [name, value] of body.parts) form.append(name, value);
        return { method: 'POST', headers: { ...headers, 'next-action': id }, body: form };
      }
      form.append('$ACTION_REF_1', '');
      const bound = ['null', '5'].includes(body.reference) ? JSON.parse(body.reference) : body.reference;
      form.append('$ACTION_1:0', JSON.stringify({ id, bound }));
      if (body.bound !== null) form.append('$ACTION_1:1', body.bound);
      form.append('name', 'Fuzz');
      return { method: 'POST', headers, body: form };
    };
    const send = async (input: Payload) => {
      const response = await fetchWithin(`${server.url}${input.page}`, request(input));
      const answer = await response.text();
      tallied(tally, response.status);
      const shown = input.body.kind === 'text' ? String(input.body.payload) : JSON.stringify(input.body);
      expect(response.status, `${response.status} for ${input.page} ${input.body.kind} ${shown.slice(0, 300)}: ${answer.slice(0, 300)}`).toBeLessThan(500);
    };
    let tried = await fuzz(payload, { inputs: RAW_INPUTS / 2, parallel: 4 }, send);
    await memory.mark();
    tried += await fuzz(payload, { inputs: RAW_INPUTS / 2, parallel: 4 }, send);
    await memory.mark();
    console.log(`console actions, raw payloads: ${tried} hostile calls, answers by status ${JSON.stringify(tally)}; ${memory.describe()}`);
    expect(total(tally)).toBe(tried);
    await expectStillUp(server);
    memory.expectFlat();
  }, 180_000);
});
