// Which address the per-address limits count (sign-in, registration): a client may claim any
// X-Forwarded-For, so it is believed only with TRUST_PROXY, and then only its last hop — the one the
// trusted proxy appended. Anything a client prepends, or a forged copy of the header Gatehouse stamps
// itself, changes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '@/lib/env';
import { clientAddress } from '@/lib/http/client-address';
import { forgetProcessSingleton, replaceProcessSingleton } from '@/lib/server/process-singleton';

function configure(trustProxy: boolean) {
  replaceProcessSingleton('env', parseEnv({ DATABASE_URL: 'postgres://db:5432/gatehouse', AUTH_SECRET: 'x'.repeat(40), TRUST_PROXY: String(trustProxy) }));
}

// What the start-up stamp leaves on a request from 192.0.2.1, whatever the client sent in its place.
const stamped = (headers: Record<string, string>) => new Headers({ ...headers, 'x-gatehouse-peer-address': '192.0.2.1' });

afterEach(() => {
  forgetProcessSingleton('env');
});

describe('the client address', () => {
  it('ignores X-Forwarded-For without TRUST_PROXY', () => {
    configure(false);
    expect(clientAddress(stamped({ 'x-forwarded-for': '198.51.100.7' }))).toBe('192.0.2.1');
    expect(clientAddress(stamped({ 'x-forwarded-for': '198.51.100.7, 203.0.113.9' }))).toBe('192.0.2.1');
  });

  it('behind a trusted proxy, takes the hop the proxy appended, not the ones the client prepended', () => {
    configure(true);
    expect(clientAddress(stamped({ 'x-forwarded-for': '203.0.113.9' }))).toBe('203.0.113.9');
    expect(clientAddress(stamped({ 'x-forwarded-for': '198.51.100.7, 10.0.0.1 ,203.0.113.9' }))).toBe('203.0.113.9');
    // No header from the proxy: the socket's address.
    expect(clientAddress(stamped({}))).toBe('192.0.2.1');
  });

  it('gives an IPv4 client of a dual-stack listener (::ffff:a.b.c.d) as its IPv4 address, to the limits and the audit log alike', () => {
    configure(false);
    const peer = (address: string) => new Headers({ 'x-gatehouse-peer-address': address });
    expect(clientAddress(peer('::ffff:192.0.2.1'))).toBe('192.0.2.1');
    expect(clientAddress(peer('::FFFF:c000:201'))).toBe('192.0.2.1');
    expect(clientAddress(peer('::1'))).toBe('::1');
    expect(clientAddress(peer('2001:db8::7'))).toBe('2001:db8::7');
    configure(true);
    expect(clientAddress(stamped({ 'x-forwarded-for': '198.51.100.7, ::ffff:203.0.113.9' }))).toBe('203.0.113.9');
  });
});
