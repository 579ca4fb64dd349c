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
  const hi = Number.parseInt(embedded[1], 16);
  const lo = Number.parseInt(embedded[2], 16);
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
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
  const [head = '', tail] = a.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

function isPublicV4(a: string): boolean {
  const [x = 0, y = 0] = a.split('.').map(Number);
  if (x === 0 || x === 10 || x === 127) return false; // this network, private, loopback
  if (x === 100 && y >= 64 && y <= 127) return false; // CGNAT
  if (x === 169 && y === 254) return false; // link-local, cloud metadata
  if (x === 172 && y >= 16 && y <= 31) return false;
  if (x === 192 && y === 168) return false;
  if (x === 192 && y === 0) return false; // IETF protocol assignments, TEST-NET-1 (192.0.2.0/24) in part
  if (x === 198 && (y === 18 || y === 19)) return false; // benchmarking
  if (x >= 224) return false; // multicast, reserved, broadcast
  return true;
}

function isPublicV6(a: string): boolean {
  const lower = a.toLowerCase();
  if (lower === '::' || lower === '::1') return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1] !== undefined) return isPublicV4(mapped[1]);
  const first = Number.parseInt(lower.split(':')[0] ?? '0', 16);
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  if (lower.startsWith('64:ff9b:') || lower.startsWith('2001:db8:') || lower.startsWith('100::'))
    return false; // NAT64, docs, discard
  return true;
}
