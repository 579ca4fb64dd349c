import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { clientAddressForm } from '../../lib/ip-address.ts';

/**
 * The client's address, in one form (`clientAddressForm`); per-client limits count its network (`clientNetwork`).
 * Behind your own reverse proxy (TRUST_PROXY), the last X-Forwarded-For entry is the one that proxy added; earlier
 * entries are client-controlled and ignored.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  return clientAddress(c.req.header('x-forwarded-for'), trustProxy, () => {
    try {
      return getConnInfo(c).remote.address;
    } catch {
      return undefined; // in-process requests (tests) have no socket
    }
  });
}

/** The same rule, framework-free: the forwarded-for header, whether to trust it, and the socket's address. */
export function clientAddress(
  forwardedFor: string | undefined,
  trustProxy: boolean,
  socketAddress: () => string | undefined,
): string {
  if (trustProxy) {
    const last = forwardedFor?.split(',').at(-1)?.trim();
    if (last !== undefined && last !== '') return clientAddressForm(last);
  }
  const socket = socketAddress();
  return socket === undefined ? 'unknown' : clientAddressForm(socket);
}
