import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import {
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
}

export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';
}

export interface GuardedResponse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/**
 * An HTTP(S) request to a URL that came from outside, with an SSRF guard: the host is resolved once, every
 * address must be public (unless allowlisted), and the connection goes to the vetted address (so a second DNS
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
    throw new GuardedFetchError('not a valid URL');
  }
  if (u.protocol !== 'https:' && !(opts.allowHttp === true && u.protocol === 'http:'))
    throw new GuardedFetchError('only https URLs are fetched');
  if (u.username !== '' || u.password !== '')
    throw new GuardedFetchError('URLs with credentials are refused');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const allowPrivate = opts.allowPrivateHosts?.includes(host) === true;
  let vetted: VettedHost;
  try {
    vetted = await vetHost(host, allowPrivate ? () => true : isPublicHostAddress);
  } catch (e) {
    if (e instanceof HostNotFoundError) throw new GuardedFetchError(`cannot resolve ${host}`);
    if (e instanceof HostRefusedError)
      throw new GuardedFetchError(`${host} resolves to a private or reserved address`);
    throw e;
  }
  const chosen = { address: vetted.address, family: isIP(vetted.address) };
  const pinned: LookupFunction = (_h, options, cb) => {
    if ((options as { all?: boolean }).all === true)
      cb(null, [{ address: chosen.address, family: chosen.family }]);
    else cb(null, chosen.address, chosen.family);
  };
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GuardedResponse>((resolve, reject) => {
    const req = request(
      u,
      {
        method: init.method,
        headers: { 'user-agent': 'InboxTriage/0.1', ...init.headers },
        lookup: pinned,
        timeout: opts.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > opts.maxBytes) {
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
