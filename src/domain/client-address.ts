/**
 * Client addresses, pure (no node:net). One address has one spelling here, so that no other way of
 * writing it (`X-Forwarded-For` is whatever a client sends) becomes a second throttle or connection bucket:
 *
 * - IPv4 is dotted decimal, four parts 0-255 with no leading zeros (`09.9.9.9` is no address: in
 *   some readers a leading zero means octal); it is kept as written.
 * - IPv6 is up to eight hex groups with at most one `::`, optionally ending in a dotted IPv4; a zone
 *   (`%eth0`) is dropped. It is written in its RFC 5952 form (lower case, zeros compressed), and an
 *   IPv4-mapped address (`::ffff:9.9.9.9`, `::ffff:909:909`, `0:0:0:0:0:ffff:9.9.9.9`) is its IPv4.
 * - A port or brackets are taken off only where that is unambiguous: `[v6]`, `[v6]:port`, `[v4]`,
 *   `v4:port`. A bare IPv6 keeps every group (`::1:80` is an address, not `::1` with a port).
 *
 * Anything else (`unknown`, markup, control characters, any other text) is no address: `clientAddress`
 * answers null, and the caller must not trust it (HTTP falls back to the connection's own address).
 */
export function clientAddress(text: string | undefined): string | null {
  if (text === undefined || text.length > 100) return null;
  const address = withoutPort(text.trim());
  if (IPV4.test(address)) return address;
  const groups = ipv6Groups(address.toLowerCase().replace(/%[0-9a-z._~-]+$/, ''));
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  return mapped ? [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.') : ipv6Text(groups);
}

/**
 * The bucket a client address counts in: IPv4 as itself, IPv6 by its /56 prefix, the smallest network a
 * customer is usually given, so one client cannot escape a per-address limit by rotating addresses inside
 * its own prefix. Every spelling of one address is one bucket; text that is no address is the single
 * bucket `unknown`, never a bucket of its own.
 */
export function addressBucket(ip: string | undefined): string {
  const address = clientAddress(ip);
  if (address === null) return 'unknown';
  const groups = ipv6Groups(address);
  if (!groups) return address;
  return `${groups.map((g) => g.toString(16).padStart(4, '0')).join('').slice(0, 14)}::/56`;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const IPV4_TAIL = new RegExp(`(?<=:)${OCTET}(?:\\.${OCTET}){3}$`);

/** `[x]` or `[x]:port` as x, `a.b.c.d:port` as a.b.c.d; anything else as it is. */
function withoutPort(text: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return bracketed[1]!;
  const v4 = /^([\d.]+):\d{1,5}$/.exec(text);
  return v4 ? v4[1]! : text;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups), or null. */
function ipv6Groups(address: string): number[] | null {
  if (!address.includes(':')) return null;
  const dotted = IPV4_TAIL.exec(address);
  const text = dotted
    ? address.slice(0, dotted.index) + [0, 2].map((i) => {
      const parts = dotted[0].split('.').map(Number);
      return ((parts[i]! << 8) | parts[i + 1]!).toString(16);
    }).join(':')
    : address;
  const [head = '', tail = '', ...extra] = text.split('::');
  if (extra.length > 0) return null;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const compressed = text.includes('::');
  if (compressed && left.length + right.length > 7) return null;
  const groups = compressed ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.length === 8 && groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups.map((g) => parseInt(g, 16)) : null;
}

/** RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function ipv6Text(groups: readonly number[]): string {
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > best.length) best = { start, length };
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
