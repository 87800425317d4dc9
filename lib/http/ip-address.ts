// IP addresses as text, read exactly: an IPv6 address as its eight 16-bit groups (RFC 4291 §2.2, all
// three text forms, with or without a zone), written back in the canonical form (RFC 5952).
import { isIP } from 'node:net';

/** The eight groups of an IPv6 address; null for IPv4 and for anything that is not an address. */
export function ipv6Groups(address: string): number[] | null {
  const bare = address.split('%')[0]!; // a zone (fe80::1%eth0, RFC 4007 §11) names an interface, not a host
  if (isIP(bare) !== 6) return null;
  let text = bare.toLowerCase();
  // A dotted IPv4 tail (::ffff:192.0.2.1, RFC 4291 §2.2 form 3) stands for the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  // isIP has checked the shape: at most one "::", at most eight groups of at most four hex digits.
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => parseInt(group, 16));
}

/** RFC 5952 text: lower case, no leading zeros, the longest run of zero groups as "::". */
export function formatIpv6(groups: readonly number[]): string {
  // The URL parser writes IPv6 hosts in exactly that form.
  return new URL(`http://[${groups.map((group) => group.toString(16)).join(':')}]/`).hostname.slice(1, -1);
}

/** The IPv4 address of an IPv4-mapped IPv6 address (::ffff:0:0/96, RFC 4291 §2.5.5.2), else null. */
export function mappedIpv4(groups: readonly number[]): string | null {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff ? ipv4Of(groups) : null;
}

/** The IPv4 address behind NAT64's well-known prefix (64:ff9b::/96, RFC 6052 §2.1), else null. */
export function nat64Ipv4(groups: readonly number[]): string | null {
  return groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0) ? ipv4Of(groups) : null;
}

function ipv4Of(groups: readonly number[]): string {
  const [high, low] = [groups[6]!, groups[7]!];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The address as one host has it: an IPv4 client of a dual-stack listener (HOST=::) reaches it as an
 * IPv4-mapped address (::ffff:192.0.2.1), which is that IPv4 address. Everything else is returned as is.
 */
export function unwrapMappedIpv4(address: string): string {
  const groups = ipv6Groups(address);
  return (groups && mappedIpv4(groups)) ?? address;
}
