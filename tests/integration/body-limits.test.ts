// Request bodies past their limit: every route that reads a body — next-auth's sign-in, sign-out and
// session endpoints, server actions (as a script's call and as a form posted without its script), the
// OAuth endpoints, the consent form and /mcp — answers 413 before it buffers the body, whether the client
// declared its length or streamed it chunked, and the server stays up. Once, a single 14 MB form of 1.5
// million distinct keys to the credentials callback (no CSRF token, no credentials) made the process run
// out of heap four seconds later; four parallel 100 MB bodies did the same.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { fetchWithin } from '../helpers/hostile-input';
import { connect, register } from '../helpers/oauth';
import { serverActionId } from '../helpers/server-actions';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { expectStillUp, residentMiB } from '../helpers/server-health';
import { signIn, type CookieJar } from '../helpers/session';

const MiB = 1024 * 1024;
/** How long one oversized request may take, from its first byte to its answer (or its closed connection). */
const REQUEST_DEADLINE_MS = 60_000;
/** Memory the server may keep after all the oversized requests of one route: nothing near the bodies' size. */
const ALLOWED_RSS_GROWTH_MIB = 96;

type Body = { chunks: () => Iterable<Buffer>; bytes: number };

/** `k0=&k1=&…` with `keys` distinct keys (1.5 million make about 14 MB), generated as it is sent. */
function distinctKeys(keys: number): Body {
  const batch = 10_000;
  const text = (from: number) => {
    let out = '';
    for (let key = from; key < Math.min(from + batch, keys); key++) out += `${key === 0 ? '' : '&'}k${key}=`;
    return Buffer.from(out);
  };
  let bytes = 0;
  for (let from = 0; from < keys; from += batch) bytes += text(from).length;
  return {
    bytes,
    *chunks() {
      for (let from = 0; from < keys; from += batch) yield text(from);
    },
  };
}

/** `bytes` bytes of one repeated byte, sent 1 MiB at a time. */
function repeatedByte(bytes: number, byte = 'a'): Body {
  const block = Buffer.alloc(MiB, byte);
  return {
    bytes,
    *chunks() {
      for (let sent = 0; sent < bytes; sent += block.length) yield block.subarray(0, Math.min(block.length, bytes - sent));
    },
  };
}

type Answer = { status: number | null; error: string | null; sentMiB: number };

/**
 * Sends `body` with its Content-Length, or chunked with none, and stops sending once an answer arrives.
 * The answer is the status the server gave; a connection closed after it is fine, one closed without it
 * is not. A keep-alive connection, as browsers use: on one marked `Connection: close` Node closes the
 * socket as soon as the answer is written, unread body and all, and the client's next write can fail
 * before it has read the answer (a race in the client, not a server that failed to answer).
 */
function sendBody(url: string, options: { method?: string; headers: Record<string, string>; body: Body; chunked: boolean }): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.chunked) headers['content-length'] = String(options.body.bytes);
    else headers['transfer-encoding'] = 'chunked';
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const request = httpRequest(url, { method: options.method ?? 'POST', headers, agent });
    let status: number | null = null;
    let sent = 0;
    let settled = false;
    const settle = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      agent.destroy();
      resolve({ status, error, sentMiB: Math.round(sent / MiB) });
    };
    const timer = setTimeout(() => settle(`no answer within ${REQUEST_DEADLINE_MS} ms`), REQUEST_DEADLINE_MS);
    request.on('response', (response) => {
      status = response.statusCode ?? null;
      response.resume();
      response.on('end', () => settle(null));
      response.on('error', () => settle(null));
    });
    request.on('error', (error) => settle(status === null ? error.message : null));
    void (async () => {
      for (const chunk of options.body.chunks()) {
        if (settled || status !== null) return;
        sent += chunk.length;
        if (!request.write(chunk)) {
          await new Promise<void>((drained) => {
            const done = () => {
              request.off('drain', done);
              request.off('close', done);
              drained();
            };
            request.on('drain', done);
            request.on('close', done);
          });
        }
      }
      if (!settled && status === null) request.end();
    })();
  });
}

type Route = { name: string; path: string; headers: () => Record<string, string>; method?: string };

describe.each([DATABASES.at(-1)!])('request bodies past their limit (%s database)', (database) => {
  let server: RunningServer;
  let owner: CookieJar;
  let accessToken: string;

  beforeAll(async () => {
    server = await startServer({ database });
    owner = (await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD)).jar;
    // /mcp reads a body only after the bearer check: a real token, so that the body is what it refuses.
    const client = await register(server.url, { client_name: 'Limits', redirect_uris: ['https://limits.example/cb'] });
    accessToken = (await connect(server.url, client, { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD })).tokens.access_token;
  });
  afterAll(async () => server?.stop());

  const routes: Route[] = [
    { name: 'the credentials callback (a form)', path: '/api/auth/callback/credentials', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    { name: 'the credentials callback (JSON)', path: '/api/auth/callback/credentials', headers: () => ({ 'content-type': 'application/json' }) },
    { name: 'sign-out', path: '/api/auth/signout', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded', cookie: owner.header() }) },
    { name: 'the session update (JSON)', path: '/api/auth/session', headers: () => ({ 'content-type': 'application/json', cookie: owner.header() }) },
    { name: "next-auth's client log", path: '/api/auth/_log', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    {
      name: 'a server action called by its script',
      path: '/admin/acme',
      headers: () => ({
        'next-action': serverActionId('app/admin/[org]/tools/actions.ts', 'setToolRestrictedAction'),
        'content-type': 'text/plain;charset=UTF-8',
        accept: 'text/x-component',
        origin: server.url,
        cookie: owner.header(),
      }),
    },
    {
      name: 'a multipart server action call',
      path: '/settings/account',
      headers: () => ({
        'next-action': serverActionId('app/admin/[org]/tools/actions.ts', 'setToolRestrictedAction'),
        'content-type': 'multipart/form-data; boundary=gatehouse-limit',
        origin: server.url,
        cookie: owner.header(),
      }),
    },
    {
      name: 'a form posted without its script',
      path: '/login',
      headers: () => ({ 'content-type': 'multipart/form-data; boundary=gatehouse-limit', origin: server.url }),
    },
    { name: 'the token endpoint', path: '/oauth/token', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    { name: 'revocation', path: '/oauth/revoke', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    { name: 'registration', path: '/oauth/register', headers: () => ({ 'content-type': 'application/json' }) },
    { name: 'the provider itself (introspection)', path: '/oauth/introspect', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    {
      name: '/mcp',
      path: '/mcp',
      headers: () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${accessToken}` }),
    },
    {
      name: 'the consent form',
      path: '/consent/no-such-interaction/decision',
      headers: () => ({ 'content-type': 'application/x-www-form-urlencoded', origin: server.url, cookie: owner.header() }),
    },
    {
      name: 'the consent screen’s ask form',
      path: '/consent/no-such-interaction/ask',
      headers: () => ({ 'content-type': 'application/x-www-form-urlencoded', origin: server.url, cookie: owner.header() }),
    },
  ];

  it.each(routes)(
    'refuses a 1.5-million-key form and four parallel 100 MB bodies to $name with 413, declared or chunked, and stays up',
    async (route) => {
      const url = `${server.url}${route.path}`;
      const before = await residentMiB(server.pid);
      const keys = distinctKeys(1_500_000);
      expect(keys.bytes).toBeGreaterThan(13 * MiB);
      const answers: { shape: string; answer: Answer }[] = [];
      for (const chunked of [false, true]) {
        answers.push({ shape: `1.5 M keys, ${chunked ? 'chunked' : 'declared'}`, answer: await sendBody(url, { headers: route.headers(), body: keys, chunked }) });
      }
      const parallel = await Promise.all([false, true, false, true].map((chunked) => sendBody(url, { headers: route.headers(), body: repeatedByte(100 * MiB), chunked })));
      answers.push(...parallel.map((answer, index) => ({ shape: `100 MB #${index + 1}, ${index % 2 ? 'chunked' : 'declared'}`, answer })));

      const described = answers.map(({ shape, answer }) => `${shape}: ${answer.status ?? answer.error} after ${answer.sentMiB} MiB`).join('; ');
      for (const { answer } of answers) expect(answer.status, `${route.name}: ${described}\n${server.output().slice(-1500)}`).toBe(413);
      await expectStillUp(server);
      const after = await residentMiB(server.pid);
      expect(after - before, `${route.name}: RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`).toBeLessThan(ALLOWED_RSS_GROWTH_MIB);
    },
    240_000,
  );

  it('refuses a sign-in form with more fields than any of its own forms, and still signs in with a normal one', async () => {
    const { csrfToken } = (await (await fetchWithin(`${server.url}/api/auth/csrf`, {})).json()) as { csrfToken: string };
    const fields = new URLSearchParams({ csrfToken, email: 'owner@acme.test', password: TEST_DEMO_PASSWORD, json: 'true' });
    for (let index = 0; index < 200; index++) fields.append(`k${index}`, '');
    const crowded = await fetchWithin(`${server.url}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    expect(crowded.status).toBe(413);
    expect(await crowded.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('fields') });
    // The same cap holds for a JSON body: its keys are counted as a form's fields are.
    const keys = Object.fromEntries([...fields.entries()]);
    const crowdedJson = await fetchWithin(`${server.url}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(keys),
    });
    expect(crowdedJson.status).toBe(413);
    expect(await crowdedJson.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('fields') });
    const { response } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    expect(response.status).toBe(200);
  });

  it('refuses a consent form with more fields than the consent screen sends', async () => {
    const post = (body: string) =>
      fetchWithin(`${server.url}/consent/no-such-interaction/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url, cookie: owner.header() },
        body,
      });
    const fields = new URLSearchParams({ csrf: 'x', decision: 'allow', org: 'acme' });
    expect((await post(fields.toString())).status).toBe(403); // read, and refused for its token
    for (let index = 0; index < 100; index++) fields.append('scope', 'mcp:read');
    expect((await post(fields.toString())).status).toBe(413);
    // The ask form sends three fields.
    const ask = (body: string) =>
      fetchWithin(`${server.url}/consent/no-such-interaction/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url, cookie: owner.header() },
        body,
      });
    const asked = new URLSearchParams({ csrf: 'x', organization: 'acme', note: 'n' });
    expect((await ask(asked.toString())).status).toBe(403);
    for (let index = 0; index < 10; index++) asked.append('note', 'n');
    expect((await ask(asked.toString())).status).toBe(413);
  });

  it('answers a server action body past 1,000,000 bytes, or with more than 1,000 fields, with 413, not the framework’s 500 or an empty 200', async () => {
    const headers = {
      'next-action': serverActionId('app/admin/[org]/tools/actions.ts', 'setToolRestrictedAction'),
      origin: server.url,
      accept: 'text/x-component',
      cookie: owner.header(),
    };
    const over = `["acme",{"tool":"${'a'.repeat(MiB)}","restricted":true}]`;
    const text = await fetchWithin(`${server.url}/admin/acme`, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain;charset=UTF-8' }, body: over });
    expect(text.status).toBe(413);
    const form = new FormData();
    form.append('0', over);
    const multipart = await fetchWithin(`${server.url}/admin/acme`, { method: 'POST', headers, body: form });
    expect(multipart.status).toBe(413);
    // Small, but more fields than the framework would take arguments.
    const crowded = new FormData();
    crowded.append('0', '["acme",{"tool":"whoami","restricted":false}]');
    for (let index = 0; index < 1_000; index++) crowded.append(`1_k${index}`, '');
    const fields = await fetchWithin(`${server.url}/admin/acme`, { method: 'POST', headers, body: crowded });
    expect(fields.status).toBe(413);
    expect(await fields.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('fields') });
    // Just under the limit, for the signed-in person's own actions too: React's decoder refused a string
    // this long inside the argument list (more than 1,000,000 slots), which the framework answered with 500.
    for (const name of ['endSessionsAction', 'changePasswordAction']) {
      const large = await fetchWithin(`${server.url}/settings/account`, {
        method: 'POST',
        headers: { ...headers, 'next-action': serverActionId('app/settings/account/actions.ts', name), 'content-type': 'text/plain;charset=UTF-8' },
        body: JSON.stringify(['acme', 'a'.repeat(1_000_000 - 12)]),
      });
      expect(large.status, `${name} with a body of 1,000,000 bytes`).toBeLessThan(500);
      const past = await fetchWithin(`${server.url}/settings/account`, {
        method: 'POST',
        headers: { ...headers, 'next-action': serverActionId('app/settings/account/actions.ts', name), 'content-type': 'text/plain;charset=UTF-8' },
        body: JSON.stringify(['acme', 'a'.repeat(1_000_000)]),
      });
      expect(past.status, `${name} with a body past 1,000,000 bytes`).toBe(413);
    }
    // A call within the limit still reaches the action.
    const within = await fetchWithin(`${server.url}/admin/acme`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain;charset=UTF-8' },
      body: '["acme",{"tool":"whoami","restricted":false}]',
    });
    expect(within.status).toBe(200);
    expect(await within.text()).toMatch(/^1:\{"ok":true/m);
  });
});
