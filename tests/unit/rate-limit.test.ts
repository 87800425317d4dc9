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
  });

  it('stay bounded in memory however many addresses appear', () => {
    const limiter = new FixedWindowLimiter(1, 60_000, () => 5);
    for (let index = 0; index < 25_000; index++) limiter.take(`10.0.${index >> 8}.${index & 255}`);
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(10_000);
  });
});
