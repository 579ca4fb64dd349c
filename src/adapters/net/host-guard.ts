import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { canonicalAddress, isPublicAddress } from '../../lib/ip-address.ts';

/**
 * The SSRF guard for hosts named from outside (IMAP and SMTP servers a person types, URLs a client hands us): without
 * a check the service would dial its own loopback, the LAN or the cloud metadata address on their behalf. The name is
 * resolved once, every address must pass, and the connection goes to the vetted address (a second DNS answer cannot
 * rebind it).
 */

/** Which resolved addresses may be dialled. */
export type AddressPolicy = (address: string) => boolean;

export class HostRefusedError extends Error {
  override readonly name = 'HostRefusedError';
}

export class HostNotFoundError extends Error {
  override readonly name = 'HostNotFoundError';
}

export interface VettedHost {
  /** The address to connect to: the first of `addresses`. */
  readonly address: string;
  /** Every address the name resolved to, each one vetted, in the resolver's order (to try in turn). */
  readonly addresses: readonly string[];
  /** The name for TLS SNI and certificate checks; undefined when the person typed an IP address. */
  readonly servername: string | undefined;
}

/** Lower-case, without IPv6 brackets or a trailing root dot, so allowlist entries match however they are typed. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** Every address a name resolves to (tests replace DNS with their own answers). */
export type HostLookup = (name: string) => Promise<string[]>;

const systemLookup: HostLookup = async (name) =>
  (await lookup(name, { all: true, order: 'verbatim' })).map((a) => a.address);

export async function vetHost(
  host: string,
  allowed: AddressPolicy,
  resolve: HostLookup = systemLookup,
): Promise<VettedHost> {
  const name = normalizeHost(host);
  let addresses: string[];
  try {
    // An IP literal is its own answer: checked like any resolved address, never looked up.
    // Each address once (a resolver may repeat one), in its order.
    addresses = isIP(name) === 0 ? [...new Set(await resolve(name))] : [name];
  } catch {
    throw new HostNotFoundError(`cannot resolve ${name}`);
  }
  const first = addresses[0];
  if (first === undefined) throw new HostNotFoundError(`cannot resolve ${name}`);
  if (!addresses.every((a) => allowed(canonicalAddress(a)))) {
    throw new HostRefusedError(`${name} resolves to a private or reserved address`);
  }
  return { address: first, addresses, servername: isIP(name) === 0 ? name : undefined };
}

/**
 * The policy the guard applies by default: public addresses only. IPv6 is first put in canonical form
 * (`0:0:0:0:0:0:0:1` → `::1`), and an IPv4 address embedded in `::ffff:0:0/96` or `::/96` is checked as IPv4:
 * `::ffff:7f00:1` reaches 127.0.0.1 on a dual-stack socket.
 */
export function isPublicHostAddress(address: string): boolean {
  return isPublicAddress(address);
}

/**
 * Whether a connection failed at once, before any word from the server (refused, no route to that address): another
 * address of the same name may answer. A timeout has spent the attempt's time, and a server that answered has spoken.
 * nodemailer keeps the system's code as `originalCode`.
 */
export function refusedAtOnce(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, originalCode } = err as { code?: unknown; originalCode?: unknown };
  return [code, originalCode].some((c) => typeof c === 'string' && REFUSED_AT_ONCE.has(c));
}

const REFUSED_AT_ONCE: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
