import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for per-IP limits. Behind your own reverse proxy (TRUST_PROXY), the last
 * X-Forwarded-For entry is the one that proxy added; earlier entries are client-controlled and ignored.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded?.split(',').at(-1)?.trim();
    if (last !== undefined && last !== '') return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // in-process requests (tests) have no socket
  }
}
