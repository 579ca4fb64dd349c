import type { Context, MiddlewareHandler } from 'hono';
import type { Account } from '../../core/accounts/account.ts';
import type { SessionService } from '../../core/sessions/session-service.ts';
import { readCookie, sessionCookieName, type CookiePolicy } from './cookies.ts';
import type { WebEnv } from './web-env.ts';

/** Loads the signed-in account (if any) from the session cookie. */
export function loadSession(sessions: SessionService, policy: CookiePolicy): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const token = readCookie(c, sessionCookieName(policy));
    const account = token === undefined ? undefined : await sessions.authenticate(token);
    c.set('account', account);
    c.set('sessionToken', account === undefined ? undefined : token);
    await next();
  };
}

/** Pages behind sign-in send the browser to /signin and back. */
export const requireSignIn: MiddlewareHandler<WebEnv> = async (c, next) => {
  if (c.get('account') === undefined) return c.redirect(signInFor(new URL(c.req.url)), 303);
  await next();
  return undefined;
};

/**
 * The longest way back kept in a sign-in link, encoded. The address asked for goes into the redirect's Location
 * header, encoded again (up to three times as long): a 13,600-character address made a header that HTTP clients
 * refuse to read (found by the fuzz run of 2026-11-27, seed 636088). Real pages' addresses, an OAuth authorization
 * request's included, are far shorter; a longer one comes back to its path alone.
 */
export const MAX_NEXT_CHARS = 4096;

/** Where a signed-out browser asking for `here` is sent: sign-in, then back to `here` (or its path, if too long). */
export function signInFor(here: URL): string {
  for (const back of [here.pathname + here.search, here.pathname]) {
    const next = encodeURIComponent(back);
    if (next.length <= MAX_NEXT_CHARS) return `/signin?next=${next}`;
  }
  return '/signin';
}

/** The signed-in account, in a handler behind a guard (requireSignIn) that already turned away anyone signed out. */
export function signedInAccount(c: Context<WebEnv>): Account {
  const account = c.get('account');
  if (account === undefined) throw new Error('a sign-in-only route was reached without a session');
  return account;
}
