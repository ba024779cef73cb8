/**
 * The bucket a client address counts in: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4),
 * IPv6 by its /56 prefix, the smallest network a customer is usually given, so one client cannot
 * escape a per-address limit by rotating addresses inside its own prefix.
 */
export function addressBucket(ip: string | undefined): string {
  const address = (ip ?? 'unknown').trim().toLowerCase().replace(/%.*$/, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  return `${groups.map((g) => g.padStart(4, '0')).join('').slice(0, 14)}::/56`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups), or null. */
function ipv6Groups(address: string): string[] | null {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted
    ? address.slice(0, dotted.index) + [0, 2].map((i) => ((Number(dotted[i + 1]) << 8) | Number(dotted[i + 2])).toString(16)).join(':')
    : address;
  const [head = '', tail = '', ...extra] = text.split('::');
  if (extra.length > 0) return null;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = text.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return groups.length === 8 && groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups : null;
}
