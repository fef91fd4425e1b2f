import { isIP } from 'node:net';

/** Verdict on one IP address; `reason` names the range when blocked. */
export interface BlockedAddressResult {
  blocked: boolean;
  /** Why the address is refused (`loopback`, `private`, `cloud-metadata`...); absent when allowed. */
  reason?: string;
}

type V4Range = readonly [base: number, prefix: number, reason: string];

// Order matters only for the reason reported: the metadata address before its link-local range.
const V4_BLOCKED: readonly V4Range[] = [
  [v4(169, 254, 169, 254), 32, 'cloud-metadata'],
  [v4(0, 0, 0, 0), 8, 'this-network'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'shared-address-space'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'ietf-protocol-assignments'],
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'benchmarking'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function parseV4(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const octet = Number(p);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

function checkV4(n: number): BlockedAddressResult {
  if (n === 0xffffffff) return { blocked: true, reason: 'broadcast' };
  for (const [base, prefix, reason] of V4_BLOCKED) {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if (((n & mask) >>> 0) === base) return { blocked: true, reason };
  }
  return { blocked: false };
}

/** Parses an IPv6 address (no brackets, no zone) into 8 groups of 16 bits. */
function parseV6(ip: string): number[] | undefined {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups.
    const n = parseV4(text.slice(lastColon + 1));
    if (n === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : (halves[0] ?? '').split(':');
  const rest = halves.length === 2 ? (halves[1] === '' ? [] : (halves[1] ?? '').split(':')) : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  const out: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    out.push(parseInt(g, 16));
  }
  return out;
}

function embeddedV4(g: readonly number[], hi: number): number {
  return (((g[hi] ?? 0) << 16) | (g[hi + 1] ?? 0)) >>> 0;
}

function checkEmbedded(n: number, via: string): BlockedAddressResult {
  const inner = checkV4(n);
  return inner.blocked ? { blocked: true, reason: `${inner.reason ?? 'blocked'} (${via})` } : inner;
}

function checkV6(g: readonly number[]): BlockedAddressResult {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return { blocked: true, reason: 'unspecified' };
    if (g6 === 0 && g7 === 1) return { blocked: true, reason: 'loopback' };
    // ::a.b.c.d, deprecated since 2006; no legitimate target uses it, and some stacks route it as IPv4.
    return { blocked: true, reason: 'ipv4-compatible' };
  }
  if (firstFiveZero && g5 === 0xffff) return checkEmbedded(embeddedV4(g, 6), 'ipv4-mapped');
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) {
    return checkEmbedded(embeddedV4(g, 6), 'ipv4-translated');
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return checkEmbedded(embeddedV4(g, 6), 'nat64');
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return { blocked: true, reason: 'nat64-local' };
  if (g0 === 0x2002) return checkEmbedded(embeddedV4(g, 1), '6to4');
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return { blocked: true, reason: 'discard-only' };
  if (g0 === 0xfd00 && g1 === 0xec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return { blocked: true, reason: 'cloud-metadata' };
  }
  if ((g0 & 0xfe00) === 0xfc00) return { blocked: true, reason: 'unique-local' };
  if ((g0 & 0xffc0) === 0xfe80) return { blocked: true, reason: 'link-local' };
  if ((g0 & 0xffc0) === 0xfec0) return { blocked: true, reason: 'site-local' };
  if ((g0 & 0xff00) === 0xff00) return { blocked: true, reason: 'multicast' };
  return { blocked: false };
}

/**
 * Whether a scrape or webhook may connect to `ip`: loopback, private, link-local, unique-local,
 * multicast, reserved and cloud metadata addresses are refused, including IPv4 addresses embedded in
 * IPv6 (mapped, compatible, NAT64, 6to4). Accepts `[v6]` and zone ids; anything that is not an IP
 * address is refused (fail closed). Pure: no DNS.
 */
export function isBlockedAddress(ip: string): BlockedAddressResult {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) {
    const n = parseV4(text);
    return n === undefined ? { blocked: true, reason: 'invalid-address' } : checkV4(n);
  }
  if (family === 6) {
    const groups = parseV6(text);
    return groups === undefined ? { blocked: true, reason: 'invalid-address' } : checkV6(groups);
  }
  return { blocked: true, reason: 'invalid-address' };
}
