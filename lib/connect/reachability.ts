// Whether MCP clients that connect from their vendor's cloud (Claude, ChatGPT) can reach this
// installation: only when PUBLIC_URL is an `https://` origin on a name or address that is public.
// Everything else — plain http, localhost, a `.local` name, a loopback, private or link-local
// address — is reachable at best from the person's own machine or network, where the device clients
// (Claude Code, Cursor, VS Code) run. A name may still resolve to a private address: this rule reads
// PUBLIC_URL only, never DNS, so it is a hint for the instructions, not a security check.
import { isIP } from 'node:net';
import { ipv6Groups, mappedIpv4, nat64Ipv4 } from '@/lib/http/ip-address';

export type PublicUrlReach =
  | { public: true }
  | {
      public: false;
      /** `http`: not https; `local-name`: localhost or a name only a local network resolves; `private-address`: not a globally reachable IP address. */
      reason: 'http' | 'local-name' | 'private-address';
    };

/**
 * Names public DNS never answers: localhost (RFC 6761 §6.3), `.local` (mDNS, RFC 6762), `.home.arpa`
 * (RFC 8375), `.internal` (reserved for private use by ICANN, 2024), `.test`/`.invalid`/`.example`
 * (RFC 2606) — and single-label names, which only a local resolver's search list completes.
 */
const LOCAL_SUFFIXES = ['localhost', 'local', 'home.arpa', 'internal', 'lan', 'test', 'invalid', 'example'];

export function publicUrlReach(publicUrl: string): PublicUrlReach {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return { public: false, reason: 'local-name' };
  }
  if (url.protocol !== 'https:') return { public: false, reason: 'http' };
  // The URL parser has already normalised the host: lower case, IPv4 in dotted decimal (0x7f.1 is
  // 127.0.0.1), IPv6 in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (isIP(host) === 4) return isPublicIpv4(host) ? { public: true } : { public: false, reason: 'private-address' };
  if (isIP(host) === 6) return isPublicIpv6(host) ? { public: true } : { public: false, reason: 'private-address' };
  if (!host.includes('.') || LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return { public: false, reason: 'local-name' };
  return { public: true };
}

/** IPv4 blocks that are not globally reachable (RFC 6890 and the IANA special-purpose registry). */
const IPV4_NOT_PUBLIC: [string, number][] = [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // documentation (RFC 5737)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation (RFC 5737)
  ['203.0.113.0', 24], // documentation (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved, and the limited broadcast address (RFC 1112, RFC 919)
];

function ipv4Number(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

export function isPublicIpv4(address: string): boolean {
  const value = ipv4Number(address);
  return !IPV4_NOT_PUBLIC.some(([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(ipv4Number(base) / 2 ** (32 - bits)));
}

export function isPublicIpv6(address: string): boolean {
  const groups = ipv6Groups(address);
  if (!groups) return false;
  // An IPv4 address carried in IPv6 (RFC 4291 §2.5.5.2, RFC 6052 §2.1) is as public as that address.
  const embedded = mappedIpv4(groups) ?? nat64Ipv4(groups);
  if (embedded) return isPublicIpv4(embedded);
  const [first] = groups as [number, ...number[]];
  if (groups.slice(0, 7).every((group) => group === 0)) return false; // :: and ::1 (RFC 4291 §2.5.2, §2.5.3)
  if ((first & 0xfe00) === 0xfc00) return false; // unique local, fc00::/7 (RFC 4193)
  if ((first & 0xffc0) === 0xfe80) return false; // link-local, fe80::/10 (RFC 4291 §2.5.6)
  if ((first & 0xffc0) === 0xfec0) return false; // site-local, fec0::/10, deprecated (RFC 3879)
  if ((first & 0xff00) === 0xff00) return false; // multicast, ff00::/8 (RFC 4291 §2.7)
  if (first === 0x2001 && groups[1] === 0x0db8) return false; // documentation, 2001:db8::/32 (RFC 3849)
  if (first === 0x0100 && groups.slice(1, 4).every((group) => group === 0)) return false; // discard, 100::/64 (RFC 6666)
  // Everything else outside 2000::/3 is unassigned; global unicast lives there (RFC 4291 §2.4).
  return (first & 0xe000) === 0x2000;
}
