import { isIP } from 'node:net';

/**
 * Whether an address is on the public internet. Server-side fetches of URLs that come from outside (client
 * metadata documents, unsubscribe links) must not reach loopback, private, link-local, CGNAT, multicast or
 * reserved ranges — that is how an SSRF reaches the cloud metadata service or an internal admin port.
 */
export function isPublicAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  const kind = isIP(canonical);
  if (kind === 4) return isPublicV4(canonical);
  if (kind === 6) return isPublicV6(canonical);
  return false;
}

/**
 * IPv6 in canonical form (`0:0:0:0:0:0:0:1` → `::1`), and an IPv4 address embedded in `::ffff:0:0/96` or `::/96`
 * returned as IPv4: `::ffff:7f00:1` reaches 127.0.0.1 on a dual-stack socket, and the URL parser writes
 * `[::ffff:127.0.0.1]` in that hex form.
 */
export function canonicalAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const embedded = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (embedded?.[1] === undefined || embedded[2] === undefined) return canonical;
  return v4Of(Number.parseInt(embedded[1], 16), Number.parseInt(embedded[2], 16));
}

/**
 * A client's address in one form, as a socket or a forwarding proxy may write it: without a port
 * (`203.0.113.7:51234`, `[2001:db8::1]:443`, what some load balancers append), without an IPv6 zone, in IPv6's
 * canonical spelling, and IPv4 mapped into IPv6 as IPv4. Anything else is kept as it is.
 */
export function clientAddressForm(raw: string): string {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(a);
  if (bracketed?.[1] !== undefined) a = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  const zone = a.indexOf('%');
  if (zone > 0 && isIP(a.slice(0, zone)) === 6) a = a.slice(0, zone);
  return canonicalAddress(a);
}

/**
 * What a per-client budget counts (decision 0111): the client's address in one form, and for IPv6 its /64. A host
 * or a household is given a whole /64 (RFC 6177, RFC 7421) and picks the low 64 bits at will, so a budget per IPv6
 * address is 2^64 budgets for whoever wants them.
 */
export function clientNetwork(raw: string): string {
  const a = clientAddressForm(raw);
  if (isIP(a) !== 6) return a;
  return `${v6Groups(a)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address in the URL parser's canonical form (all hex, `::` for zeros). */
function v6Groups(a: string): number[] {
  const [head = '', tail] = a.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) =>
    Number.parseInt(g, 16),
  );
}

/** The IPv4 address two 16-bit groups carry. */
function v4Of(hi: number, lo: number): string {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/**
 * The IANA special-purpose ranges (RFC 6890 and its updates) that are not globally reachable, and the private ones.
 * Exact ranges, not their neighbourhoods: 192.0.0.0/16 beyond its /24s below is ordinary address space (Automattic's
 * 192.0.64.0/18 serves WordPress.com and its newsletters' unsubscribe links).
 */
function isPublicV4(a: string): boolean {
  const [x = 0, y = 0, z = 0] = a.split('.').map(Number);
  if (x === 0 || x === 10 || x === 127) return false; // this network, private, loopback
  if (x === 100 && y >= 64 && y <= 127) return false; // CGNAT
  if (x === 169 && y === 254) return false; // link-local, cloud metadata
  if (x === 172 && y >= 16 && y <= 31) return false;
  if (x === 192 && y === 168) return false;
  if (x === 192 && y === 0 && (z === 0 || z === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (x === 192 && y === 88 && z === 99) return false; // the 6to4 relay anycast (deprecated)
  if (x === 198 && (y === 18 || y === 19)) return false; // benchmarking
  if ((x === 198 && y === 51 && z === 100) || (x === 203 && y === 0 && z === 113)) return false; // TEST-NET-2, -3
  if (x >= 224) return false; // multicast, reserved, broadcast
  return true;
}

/**
 * Public IPv6 is global unicast (2000::/3) only — loopback, unique local, link-local, multicast and everything IANA
 * has not allocated are outside it — less its special-purpose ranges. Two forms carry an IPv4 address that a
 * translator or relay reaches, and are as public as that address: NAT64's well-known prefix (64:ff9b::/96, RFC 6052,
 * what DNS64 answers on an IPv6-only host) and 6to4 (2002::/16).
 */
function isPublicV6(a: string): boolean {
  const g = v6Groups(a);
  if (g.length !== 8 || g.some((n) => !Number.isInteger(n))) return false;
  const [g0 = 0, g1 = 0, g2 = 0, , , , g6 = 0, g7 = 0] = g;
  if (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((n) => n === 0)) return isPublicV4(v4Of(g6, g7));
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && (g1 < 0x200 || g1 === 0xdb8)) return false; // IETF protocol assignments (Teredo too), docs
  if (g0 === 0x3fff && g1 < 0x1000) return false; // documentation (RFC 9637)
  if (g0 === 0x2002) return isPublicV4(v4Of(g1, g2));
  return true;
}
