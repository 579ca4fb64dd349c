import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { isIP, type LookupFunction, type TcpNetConnectOpts } from 'node:net';
import {
  type HostLookup,
  HostNotFoundError,
  HostRefusedError,
  isPublicHostAddress,
  type VettedHost,
  vetHost,
} from '../net/host-guard.ts';

export interface GuardedFetchOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Host names an operator allows even though they resolve to private addresses (e.g. an intranet IdP). */
  readonly allowPrivateHosts?: readonly string[];
  /** Tests only: permit http:// (a loopback test server). */
  readonly allowHttp?: boolean;
  /** A body past `maxBytes` is cut there (the answer keeps its status) instead of failing the request. */
  readonly truncateBody?: boolean;
  /** Tests only: DNS answers, and a CA to trust for a local https server. */
  readonly lookup?: HostLookup;
  readonly ca?: string;
}

export class GuardedFetchError extends Error {
  override readonly name: string = 'GuardedFetchError';
}

/** Refused before any connection was attempted: the URL, its scheme or its address is not allowed. */
export class GuardedRefusedError extends GuardedFetchError {
  override readonly name = 'GuardedRefusedError';
}

export interface GuardedResponse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/**
 * An HTTP(S) request to a URL that came from outside, with an SSRF guard: the host is resolved once, every
 * address must be public (unless allowlisted), and the connection goes to a vetted address (so a second DNS
 * answer cannot rebind it). No redirects are followed, no cookies or credentials are sent, time and size are
 * bounded.
 */
export async function guardedRequest(
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  opts: GuardedFetchOptions,
): Promise<GuardedResponse> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new GuardedRefusedError('not a valid URL');
  }
  if (u.protocol !== 'https:' && !(opts.allowHttp === true && u.protocol === 'http:'))
    throw new GuardedRefusedError('only https URLs are fetched');
  if (u.username !== '' || u.password !== '')
    throw new GuardedRefusedError('URLs with credentials are refused');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const allowPrivate = opts.allowPrivateHosts?.includes(host) === true;
  let vetted: VettedHost;
  try {
    vetted = await vetHost(host, allowPrivate ? () => true : isPublicHostAddress, opts.lookup);
  } catch (e) {
    if (e instanceof HostNotFoundError) throw new GuardedRefusedError(`cannot resolve ${host}`);
    if (e instanceof HostRefusedError)
      throw new GuardedRefusedError(`${host} resolves to a private or reserved address`);
    throw e;
  }
  // Node asks for every address (`all`) to try them in turn, IPv6 and IPv4 interleaved (Happy Eyeballs): it gets the
  // vetted ones, so a host whose first address does not answer is reached at its next, and none is looked up again.
  const vettedAddresses = vetted.addresses.map((address) => ({ address, family: isIP(address) }));
  const pinned: LookupFunction = (_h, options, cb) => {
    if ((options as { all?: boolean }).all === true) cb(null, vettedAddresses);
    else cb(null, vetted.address, isIP(vetted.address));
  };
  // Node gives each address but the last 250 ms to connect, then abandons it for the next: a working server over a
  // slow route would be dropped mid-handshake at every address (nodejs/node#54359). An address is left only when it
  // fails, as IMAP and SMTP do (decision 0156); one that never answers spends the request's time. (A socket option,
  // which the request hands to net.connect.)
  const attempts: Pick<TcpNetConnectOpts, 'autoSelectFamilyAttemptTimeout'> = {
    autoSelectFamilyAttemptTimeout: opts.timeoutMs,
  };
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GuardedResponse>((resolve, reject) => {
    const req = request(
      u,
      {
        method: init.method,
        headers: { 'user-agent': 'InboxTriage/0.1', ...init.headers },
        lookup: pinned,
        ...attempts,
        timeout: opts.timeoutMs,
        ...(opts.ca !== undefined && { ca: opts.ca }),
        // No cookie jar, no credentials, no proxy: the request carries only what the caller put in it.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > opts.maxBytes) {
            if (opts.truncateBody === true) {
              chunks.push(c.subarray(0, c.length - (size - opts.maxBytes)));
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
              req.destroy();
              return;
            }
            req.destroy(new GuardedFetchError(`response larger than ${String(opts.maxBytes)} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    const deadline = setTimeout(() => req.destroy(new GuardedFetchError('timed out')), opts.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new GuardedFetchError('timed out')));
    req.on('error', (e) => reject(e instanceof GuardedFetchError ? e : new GuardedFetchError(e.message)));
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}
