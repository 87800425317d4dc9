// The rule of lib/db/transaction.ts: nothing waits on the network while a database transaction is open.
// Each network read checks it; a buffered request body is memory, not network.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentTransaction } from '@/lib/db/open-transaction';
import { bufferRequest, readLimitedBody, requestWithBody } from '@/lib/http/body';
import { runNodeHandler } from '@/lib/oauth/bridge';

const inOpenTransaction = <T>(work: () => Promise<T>) => currentTransaction.run({ tx: {}, open: true }, work);

/** A request whose body has not arrived yet (as from a client that sends it slowly). */
function slowRequest(): Request {
  const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('{')) });
  return new Request('https://auth.example.com/oauth/register/x', { method: 'DELETE', body, duplex: 'half' } as RequestInit);
}

describe('no network read inside a database transaction', () => {
  it('refuses to read a request body from the network while a transaction is open', async () => {
    await expect(inOpenTransaction(() => readLimitedBody(slowRequest(), 1024))).rejects.toThrow(/reading a request body while a database transaction is open/);
  });

  it('refuses it in the bridge to the provider too, before the handler runs', async () => {
    let ran = false;
    const handler = () => {
      ran = true;
    };
    await expect(inOpenTransaction(() => runNodeHandler(handler, slowRequest(), { publicUrl: 'https://auth.example.com', clientAddress: '203.0.113.7' }))).rejects.toThrow(
      /database transaction is open/,
    );
    expect(ran).toBe(false);
  });

  it('reads a buffered body from memory, inside a transaction as outside, with the same limit', async () => {
    const buffered = await bufferRequest(new Request('https://auth.example.com/oauth/token', { method: 'POST', body: 'grant_type=x' }), 1024);
    expect(buffered).not.toBeNull();
    expect(await inOpenTransaction(() => readLimitedBody(buffered!, 1024))).toBe('grant_type=x');
    expect(await inOpenTransaction(() => readLimitedBody(buffered!, 4))).toBeNull();
    const rewritten = requestWithBody(buffered!, '{"a":1}', 'application/json');
    expect(rewritten.headers.get('content-type')).toBe('application/json');
    expect(await inOpenTransaction(() => readLimitedBody(rewritten, 1024))).toBe('{"a":1}');
  });

  it('refuses to buffer past the limit, chunked or declared', async () => {
    expect(await bufferRequest(new Request('https://a.example/', { method: 'POST', body: 'x'.repeat(2000) }), 1024)).toBeNull();
    const declared = new Request('https://a.example/', { method: 'POST', body: 'x', headers: { 'content-length': '5000' } });
    expect(await bufferRequest(declared, 1024)).toBeNull();
  });

  it('no longer applies once the transaction has ended, even to work it started', async () => {
    const store = { tx: {}, open: true };
    const later = currentTransaction.run(store, () => new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => readLimitedBody(slowRequestDone(), 1024)));
    store.open = false;
    expect(await later).toBe('ok');
  });

  it('has every transaction of the server go through inTransaction, where the rule is checked', () => {
    // Direct $transaction calls would open a transaction the rule cannot see. Allowed only where no
    // request is served: seeding the demo data at start-up, and the create-owner command.
    const allowed = new Set(['lib/db/transaction.ts', 'lib/people/demo.ts', 'lib/people/accounts.ts']);
    const root = join(__dirname, '..', '..');
    const offenders: string[] = [];
    const walk = (directory: string) => {
      for (const name of readdirSync(directory)) {
        const path = join(directory, name);
        if (name === 'generated' || name === 'node_modules') continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx|mjs)$/.test(name) && readFileSync(path, 'utf8').includes('$transaction(')) {
          const file = relative(root, path);
          if (!allowed.has(file)) offenders.push(file);
        }
      }
    };
    for (const top of ['lib', 'app', 'cli']) {
      try {
        walk(join(root, top));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    expect(offenders).toEqual([]);
  });
});

function slowRequestDone(): Request {
  return new Request('https://auth.example.com/', { method: 'POST', body: 'ok' });
}
