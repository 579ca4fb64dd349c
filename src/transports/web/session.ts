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
  if (c.get('account') === undefined) {
    const here = new URL(c.req.url);
    return c.redirect(`/signin?next=${encodeURIComponent(here.pathname + here.search)}`, 303);
  }
  await next();
  return undefined;
};

/** The signed-in account, in a handler behind a guard (requireSignIn) that already turned away anyone signed out. */
export function signedInAccount(c: Context<WebEnv>): Account {
  const account = c.get('account');
  if (account === undefined) throw new Error('a sign-in-only route was reached without a session');
  return account;
}
