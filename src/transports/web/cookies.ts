import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export interface CookiePolicy {
  readonly secure: boolean;
}

/** `__Host-` pins the cookie to our exact origin over https (no Domain, Path=/, Secure). */
export const sessionCookieName = (p: CookiePolicy) => (p.secure ? '__Host-it_session' : 'it_session');
export const csrfCookieName = (p: CookiePolicy) => (p.secure ? '__Host-it_csrf' : 'it_csrf');
/** A browser that signed in before (decision 0025): its own sign-in budget, kept for a year. */
export const deviceCookieName = (p: CookiePolicy) => (p.secure ? '__Host-it_device' : 'it_device');

/** A sign-in whose password was right, waiting for its second factor (decision 0089): five minutes. */
export const secondStepCookieName = (p: CookiePolicy) => (p.secure ? '__Host-it_signin' : 'it_signin');

export function setHttpOnlyCookie(
  c: Context,
  p: CookiePolicy,
  name: string,
  value: string,
  maxAgeSeconds?: number,
  path = '/',
): void {
  setCookie(c, name, value, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: p.secure,
    path,
    ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }),
  });
}

export function readCookie(c: Context, name: string): string | undefined {
  return getCookie(c, name);
}

export function clearCookie(c: Context, p: CookiePolicy, name: string, path = '/'): void {
  deleteCookie(c, name, { path, secure: p.secure, httpOnly: true, sameSite: 'Lax' });
}
