// A forwarded call leaves nothing behind once it is answered (lib/connectors/forward.ts). Node keeps an
// AbortSignal.any() signal that has an abort listener alive until it aborts, and the SDK client never
// removes the listener it adds to a call's signal: a composite signal there kept every call's whole
// context (on the server, its request and response) in memory until the process ran out of heap. Shown
// here in process, against a real SDK upstream: what a call was given is collected after the call.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeConnectorClients, forwardToolCall } from '@/lib/connectors/forward';
import type { ConnectorEndpoint } from '@/lib/connectors/served';
import { echoTool, type RunningUpstream, startUpstream } from '../helpers/upstream-mcp';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const CALLS = 40;

describe('forwarded calls', () => {
  let upstream: RunningUpstream;
  let connector: ConnectorEndpoint;

  beforeAll(async () => {
    upstream = await startUpstream({ stateful: false, tools: [echoTool('echo', { annotations: { readOnlyHint: true } })] });
    connector = { id: 'retention', slug: 'retention', name: 'Retention', url: upstream.url, timeoutMs: 5_000, credentialSealed: null, clientCredentials: null };
  });
  afterAll(async () => {
    await closeConnectorClients();
    await upstream?.stop();
  });

  it('keeps nothing of a call once it is answered: not its headers, not its caller’s signal', async () => {
    const headers: WeakRef<object>[] = [];
    const signals: WeakRef<object>[] = [];
    for (let index = 0; index < CALLS; index++) {
      const caller = new AbortController();
      signals.push(new WeakRef(caller.signal));
      const outcome = await forwardToolCall({
        connector,
        upstreamName: 'echo',
        args: { text: `call ${index}` },
        signal: caller.signal,
        headers: async () => {
          const sent = { 'x-call': String(index) };
          headers.push(new WeakRef(sent));
          return sent;
        },
      });
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    }
    expect(headers).toHaveLength(CALLS);
    // Collected, after the timers and sockets of the last call have settled.
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
    }
    const alive = (refs: WeakRef<object>[]) => refs.filter((ref) => ref.deref() !== undefined).length;
    // The last call's may still be held by a connection's bookkeeping: a leak keeps every one.
    expect(alive(headers)).toBeLessThanOrEqual(2);
    expect(alive(signals)).toBeLessThanOrEqual(2);
  });
});
