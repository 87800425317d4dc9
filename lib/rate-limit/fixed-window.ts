// A fixed-window counter per key, in this process's memory. Good for abuse controls that tolerate a
// per-instance budget (client registration per IP); limits that must hold across instances use the
// shared store instead.
import { formatIpv6, ipv6Groups, mappedIpv4, nat64Ipv4 } from '@/lib/http/ip-address';

const MAX_KEYS = 10_000;

/**
 * The key for an address: IPv4 as is, IPv6 by its /64 (one host usually holds a whole /64). An IPv6
 * address that carries an IPv4 one (mapped, as a dual-stack listener sees IPv4 clients; or NAT64) is that
 * IPv4 address. Where a /64 is not one host's — ::/64 (loopback ::1, IPv4-compatible) and link-local
 * fe80::/10, whose /64 is the same on every link — the whole address is the key.
 */
export function addressKey(address: string): string {
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const ipv4 = mappedIpv4(groups) ?? nat64Ipv4(groups);
  if (ipv4) return ipv4;
  const prefix = groups.slice(0, 4);
  if (prefix.every((group) => group === 0) || (groups[0]! & 0xffc0) === 0xfe80) return formatIpv6(groups);
  return `${prefix.map((group) => group.toString(16)).join(':')}::/64`;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): RateDecision {
    const now = this.now();
    if (this.windows.size >= MAX_KEYS) this.prune(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000)) };
    }
    window.count++;
    return { allowed: true };
  }

  /** Drops finished windows, then the oldest ones (a Map keeps insertion order) until there is room. */
  /** Whether the key's budget is spent, without spending any. */
  exhausted(key: string): boolean {
    const window = this.windows.get(key);
    return Boolean(window && this.now() - window.start < this.windowMs && window.count >= this.limit);
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(key);
    }
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS * 0.9) break;
      this.windows.delete(key);
    }
  }
}
