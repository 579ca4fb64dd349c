import type { Context } from 'hono';
import { clearCookie, sessionCookieName, setHttpOnlyCookie } from './cookies.ts';
import type { WebDeps } from './web-deps.ts';

export function setSessionCookie(c: Context, deps: WebDeps, token: string): void {
  setHttpOnlyCookie(c, deps.cookies, sessionCookieName(deps.cookies), token, deps.sessionTtlSeconds);
}

export function clearSessionCookie(c: Context, deps: WebDeps): void {
  clearCookie(c, deps.cookies, sessionCookieName(deps.cookies));
}
