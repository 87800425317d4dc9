// The soak run's traffic (issue: reliability): new clients through the whole OAuth flow, refreshes,
// /mcp calls, revocations (by the client and by the person) and an admin's changes, all at once for a
// set time. Every answer is checked against what it must be, and every change is counted, so that
// soak/checks.ts can hold the database to what was done.
//
// One connection (client, grant, token pair) is used by one operation at a time: a call, a refresh
// and a revocation of the same grant never overlap, so every answer has exactly one right value
// (before its revocation a call answers 200, after it 401). Different connections run concurrently.
import { connectClient, type Connection } from '../bench/tokens';
import { postMcp } from '../tests/helpers/mcp';
import { callServerAction } from '../tests/helpers/server-actions';
import { signIn, type CookieJar } from '../tests/helpers/session';

export type TrafficOptions = {
  baseUrl: string;
  seconds: number;
  /** The build the server runs (server actions are named by its manifest). */
  distDir: string;
  password: string;
  /** The grant behind a client (one per client here), for the person's own revocation. */
  grantIdOf(clientId: string): Promise<string>;
  /** The server's resident memory now, in MB. */
  rssMb(): number;
};

export type Tally = {
  connected: number;
  refreshed: number;
  /** /mcp requests of live grants answered: each must have left exactly one call-log row. */
  mcpAnswered: number;
  revokedByClient: number;
  revokedByPerson: number;
  toolChanges: number;
  revokedClientIds: string[];
  /** Answers that were not what they must be (the first 50, and how many in all). */
  unexpected: string[];
  unexpectedCount: number;
  rss: { second: number; mb: number }[];
};

const MCP_WORKERS = 4;
const MAX_LIVE_CONNECTIONS = 60;
const REVOKE_EVERY_MS = 1_500;
const ADMIN_CHANGE_EVERY_MS = 2_000;
const RSS_EVERY_MS = 5_000;
const TOOLS_ACTION = { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction' };
const OWN_REVOKE_ACTION = { file: 'app/settings/connected-apps/actions.ts', name: 'revokeConnectedApp' };
/** Turned off and on by the admin; the traffic never calls it, so no call's answer depends on timing. */
const TOGGLED_TOOL = 'list_members';

type Slot = { connection: Connection; busy: boolean; revoked: boolean; calls: number };

export async function runTraffic(options: TrafficOptions): Promise<Tally> {
  const { baseUrl } = options;
  const tally: Tally = { connected: 0, refreshed: 0, mcpAnswered: 0, revokedByClient: 0, revokedByPerson: 0, toolChanges: 0, revokedClientIds: [], unexpected: [], unexpectedCount: 0, rss: [] };
  const unexpected = (what: string) => {
    tally.unexpectedCount++;
    if (tally.unexpected.length < 50) tally.unexpected.push(what);
  };
  const member = await signedIn(baseUrl, 'member@acme.test', options.password);
  const owner = await signedIn(baseUrl, 'owner@acme.test', options.password);
  const runId = Date.now().toString(36);
  const slots: Slot[] = [];
  const started = Date.now();
  const deadline = started + options.seconds * 1000;
  const running = () => Date.now() < deadline;

  /** An idle, live connection, taken for one operation; null when none is free. */
  const take = (): Slot | null => {
    const idle = slots.filter((slot) => !slot.busy && !slot.revoked);
    const slot = idle[Math.floor(Math.random() * idle.length)];
    if (!slot) return null;
    slot.busy = true;
    return slot;
  };

  const connectLoop = async () => {
    for (let index = 0; running(); index++) {
      if (slots.filter((slot) => !slot.revoked).length >= MAX_LIVE_CONNECTIONS) {
        await sleep(200);
        continue;
      }
      try {
        slots.push({ connection: await connectClient(baseUrl, member, `soak-${runId}-${index}`), busy: false, revoked: false, calls: 0 });
        tally.connected++;
      } catch (error) {
        unexpected(`OAuth flow: ${(error as Error).message}`);
      }
    }
  };

  const mcpLoop = async () => {
    while (running()) {
      const slot = take();
      if (!slot) {
        await sleep(20);
        continue;
      }
      try {
        const method = slot.calls++ % 2 ? 'tools/list' : 'tools/call';
        const answer = await callMcp(baseUrl, slot.connection.accessToken, method);
        if (answer.status !== 0) tally.mcpAnswered++;
        if (answer.status !== 200 || !answer.ok) unexpected(`/mcp ${method} on a live grant: ${answer.status} ${answer.text.slice(0, 200)}`);
        // Every few calls, a refresh on the same connection: the new pair replaces the old.
        if (slot.calls % 8 === 0) await refresh(slot);
      } finally {
        slot.busy = false;
      }
    }
  };

  const refresh = async (slot: Slot) => {
    const response = await tokenRequest(baseUrl, { grant_type: 'refresh_token', refresh_token: slot.connection.refreshToken, client_id: slot.connection.clientId });
    if (response.status !== 200) return unexpected(`refresh on a live grant: ${response.status} ${JSON.stringify(response.body)}`);
    tally.refreshed++;
    slot.connection = { ...slot.connection, accessToken: response.body.access_token!, refreshToken: response.body.refresh_token! };
  };

  const revokeLoop = async () => {
    for (let round = 0; running(); round++) {
      await sleep(REVOKE_EVERY_MS);
      const slot = take();
      if (!slot) continue;
      try {
        const byPerson = round % 2 === 1;
        const revoked = byPerson ? await revokeAsPerson(slot) : await revokeAsClient(slot);
        if (!revoked) continue;
        slot.revoked = true;
        tally.revokedClientIds.push(slot.connection.clientId);
        if (byPerson) tally.revokedByPerson++;
        else tally.revokedByClient++;
        // The very next call and refresh must fail.
        // Its token went with the grant: a refusal of no organization, which the server counts but
        // writes no call-log row for.
        const call = await callMcp(baseUrl, slot.connection.accessToken, 'tools/call');
        if (call.status !== 401) unexpected(`/mcp after revocation: ${call.status} ${call.text.slice(0, 200)}`);
        const again = await tokenRequest(baseUrl, { grant_type: 'refresh_token', refresh_token: slot.connection.refreshToken, client_id: slot.connection.clientId });
        if (again.status !== 400 || again.body.error !== 'invalid_grant') unexpected(`refresh after revocation: ${again.status} ${JSON.stringify(again.body)}`);
      } finally {
        slot.busy = false;
      }
    }
  };

  const revokeAsClient = async (slot: Slot): Promise<boolean> => {
    const response = await fetch(`${baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: slot.connection.refreshToken, token_type_hint: 'refresh_token', client_id: slot.connection.clientId }).toString(),
    });
    await response.body?.cancel();
    if (response.status !== 200) unexpected(`/oauth/revoke: ${response.status}`);
    return response.status === 200;
  };

  const revokeAsPerson = async (slot: Slot): Promise<boolean> => {
    const grantId = await options.grantIdOf(slot.connection.clientId);
    const call = await callServerAction(baseUrl, member, { ...OWN_REVOKE_ACTION, distDir: options.distDir }, [grantId], '/settings/connected-apps');
    const ok = (call.result as { ok?: boolean } | undefined)?.ok === true;
    if (!ok) unexpected(`Connected Apps revoke: ${call.status} ${call.body.slice(0, 200)}`);
    return ok;
  };

  const adminLoop = async () => {
    for (let change = 0; running(); change++) {
      await sleep(ADMIN_CHANGE_EVERY_MS);
      if (await setToolRestricted(baseUrl, owner, options.distDir, change % 2 === 0)) tally.toolChanges++;
      else unexpected('tool restriction change refused');
    }
  };

  const rssLoop = async () => {
    while (running()) {
      tally.rss.push({ second: Math.round((Date.now() - started) / 1000), mb: options.rssMb() });
      await sleep(RSS_EVERY_MS);
    }
  };

  // The admin's switch starts from "on", so that every change the loop makes is a real change.
  if (!(await setToolRestricted(baseUrl, owner, options.distDir, false))) throw new Error('soak: the owner cannot change tool restrictions');
  await Promise.all([connectLoop(), ...Array.from({ length: MCP_WORKERS }, mcpLoop), revokeLoop(), adminLoop(), rssLoop()]);
  return tally;
}

/** Sets the toggled tool's restriction as the owner; true when the console accepted it. */
async function setToolRestricted(baseUrl: string, owner: CookieJar, distDir: string, restricted: boolean): Promise<boolean> {
  const call = await callServerAction(baseUrl, owner, { ...TOOLS_ACTION, distDir }, ['acme', { tool: TOGGLED_TOOL, restricted }], '/admin/acme');
  return (call.result as { ok?: boolean } | undefined)?.ok === true;
}

async function signedIn(baseUrl: string, email: string, password: string): Promise<CookieJar> {
  const { jar, response } = await signIn(baseUrl, email, password);
  if (response.status !== 200) throw new Error(`soak: signing in as ${email} failed (${response.status})`);
  return jar;
}

/** One /mcp call; `ok` when the answer is a JSON-RPC result that is not a tool error. Status 0: no answer. */
async function callMcp(baseUrl: string, token: string, method: 'tools/call' | 'tools/list'): Promise<{ status: number; ok: boolean; text: string }> {
  const params = method === 'tools/call' ? { name: 'whoami', arguments: {} } : {};
  try {
    const reply = await postMcp(baseUrl, token, { jsonrpc: '2.0', id: 1, method, params }, { 'mcp-protocol-version': '2025-11-25' });
    const result = reply.body?.result as { isError?: boolean } | undefined;
    return { status: reply.status, ok: Boolean(result) && result?.isError !== true, text: reply.text };
  } catch (error) {
    return { status: 0, ok: false, text: (error as Error).message };
  }
}

/** A token request; status 0 when no (JSON) answer came. (Not the test helper's: that one needs the test runner.) */
async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<{ status: number; body: Record<string, string | undefined> }> {
  try {
    const response = await fetch(`${baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  } catch (error) {
    return { status: 0, body: { error: (error as Error).message } };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
