// Bounded body reads (lib/http/body.ts): the limit holds on the stream itself, whatever Content-Length
// says or when there is none, and fields are counted before anything parses them.
import { describe, expect, it } from 'vitest';
import { countFormFields, readBoundedBody, readLimitedBytes } from '@/lib/http/body';

/** A request whose body arrives in `chunks` chunks of `size` bytes, with no Content-Length (chunked). */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}): { request: Request; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { request: new Request('http://localhost/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit), pulled: () => pulled };
}

describe('bounded body reads', () => {
  it('refuses a chunked body as soon as it passes the limit, and reads no more than a few MiB of it', async () => {
    const { request, pulled } = streamed(10_000, 64 * 1024); // 625 MiB if it were read whole
    expect(await readLimitedBytes(request, 16 * 1024)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The rest is dropped unread after at most 8 MiB (so that the client can read the 413 first).
    expect(pulled()).toBeLessThanOrEqual(8 * 16 + 2);
  });

  it('refuses a body whose Content-Length is past the limit without waiting for it', async () => {
    const request = new Request('http://localhost/', { method: 'POST', body: 'x', headers: { 'content-length': '999999999' } });
    expect(await readLimitedBytes(request, 1024)).toBeNull();
  });

  it('returns a body within the limit whole', async () => {
    const { request } = streamed(4, 1000);
    expect((await readLimitedBytes(request, 4000))?.length).toBe(4000);
  });

  it('counts form fields as URLSearchParams finds them', () => {
    for (const text of ['', 'a', 'a=1&b=2', '&&a=1&&', 'k0=&k1=&k2=', '=&=', 'a=1&b']) {
      expect(countFormFields(text), text).toBe([...new URLSearchParams(text)].length);
    }
  });

  it('refuses a form with more fields than allowed, and JSON that is not an object, before anyone parses them', async () => {
    const form = (text: string, type = 'application/x-www-form-urlencoded') => new Request('http://localhost/', { method: 'POST', body: text, headers: { 'content-type': type } });
    const limits = { bytes: 16 * 1024, fields: 3 };
    expect(await readBoundedBody(form('a=1&b=2&c=3'), limits)).toMatchObject({ ok: true });
    expect(await readBoundedBody(form('a=1&b=2&c=3&d=4'), limits)).toMatchObject({ ok: false, status: 413 });
    expect(await readBoundedBody(form('{"a":1,"b":2,"c":3,"d":4}', 'application/json'), limits)).toMatchObject({ ok: false, status: 413 });
    for (const json of ['{', '[]', 'null', '"x"', '1']) {
      expect(await readBoundedBody(form(json, 'application/json; charset=utf-8'), limits), json).toMatchObject({ ok: false, status: 400 });
    }
    // Checked as JSON whenever a lenient parser would take it for JSON.
    expect(await readBoundedBody(form('{', 'text/plain; x=application/json'), limits)).toMatchObject({ ok: false, status: 400 });
    expect(await readBoundedBody(form('x'.repeat(16 * 1024 + 1)), limits)).toMatchObject({ ok: false, status: 413 });
  });
});
