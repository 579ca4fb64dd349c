import type { MiddlewareHandler } from 'hono';
import { newSecret, timingSafeEqualStrings } from '../../lib/secret-token.ts';
import { csrfCookieName, readCookie, setHttpOnlyCookie, type CookiePolicy } from './cookies.ts';
import type { WebEnv } from './web-env.ts';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Two independent checks on every state-changing request from a browser:
 * 1. the request must not come from another site (Sec-Fetch-Site, then Origin against our own origin);
 * 2. a token from the form (or the X-CSRF-Token header) must equal this browser's CSRF cookie
 *    (double submit: another site can neither read the cookie nor set it, thanks to SameSite and HttpOnly).
 * Either failing answers 403.
 */
export function csrfProtection(opts: CookiePolicy & { origin: string }): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const name = csrfCookieName(opts);
    let token = readCookie(c, name);
    if (token === undefined || !/^[a-z0-9]{32}$/.test(token)) {
      token = newSecret('', 32);
      setHttpOnlyCookie(c, opts, name, token);
    }
    c.set('csrf', token);
    if (!UNSAFE.has(c.req.method)) {
      await next();
      return undefined;
    }
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if (site === 'cross-site' || (origin !== undefined && origin !== opts.origin)) return forbidden();
    let sent = c.req.header('x-csrf-token');
    if (sent === undefined && (c.req.header('content-type') ?? '').includes('form')) {
      const body = await c.req.parseBody();
      sent = typeof body['_csrf'] === 'string' ? body['_csrf'] : undefined;
    }
    if (sent === undefined || !timingSafeEqualStrings(sent, token)) return forbidden();
    await next();
    return undefined;
  };
}

function forbidden(): Response {
  return new Response(
    '<!doctype html><meta charset="utf-8"><title>Forbidden</title><p>This form has expired or came from another site. Go back, reload the page and try again.</p>',
    { status: 403, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } },
  );
}
