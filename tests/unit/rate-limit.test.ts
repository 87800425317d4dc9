import { describe, expect, it } from 'vitest';
import { addressKey, FixedWindowLimiter } from '@/lib/rate-limit/fixed-window';

describe('fixed-window limits', () => {
  it('allow the budget, then refuse with the seconds left in the window', () => {
    let now = 1_000_000;
    const limiter = new FixedWindowLimiter(2, 60_000, () => now);
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: true });
    now += 15_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(limiter.take('b')).toEqual({ allowed: true });
    now += 45_000;
    expect(limiter.take('a')).toEqual({ allowed: true });
  });

  it('count IPv6 clients by their /64, IPv4 by address', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    // One /64, however it is spelled.
    expect(addressKey('2001:0DB8:0001:0002:0000:0000:0000:0001')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:3:4:192.0.2.1')).toBe('2001:db8:1:2::/64');
  });

  it('key an IPv4 client of a dual-stack listener (::ffff:a.b.c.d) as its IPv4 address, in either spelling', () => {
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('::FFFF:7f00:2')).toBe('127.0.0.2');
    expect(addressKey('0:0:0:0:0:ffff:c000:201')).toBe('192.0.2.1');
    // NAT64's well-known prefix (RFC 6052 §2.1) carries the IPv4 client too.
    expect(addressKey('64:ff9b::203.0.113.9')).toBe('203.0.113.9');
  });

  it("key addresses whose /64 is not one host's by the whole address: ::1, ::, link-local", () => {
    expect(addressKey('::1')).toBe('::1');
    expect(addressKey('::')).toBe('::');
    expect(addressKey('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(addressKey('fe80::1%eth0')).toBe('fe80::1');
    expect(addressKey('fe80::2')).not.toBe(addressKey('fe80::1'));
    expect(addressKey('unknown')).toBe('unknown');
  });

  it('stay bounded in memory however many addresses appear', () => {
    const limiter = new FixedWindowLimiter(1, 60_000, () => 5);
    for (let index = 0; index < 25_000; index++) limiter.take(`10.0.${index >> 8}.${index & 255}`);
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(10_000);
  });
});
