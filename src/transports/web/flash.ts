import type { Context } from 'hono';
import type { Aead } from '../../lib/aead.ts';
import { clearCookie, readCookie, setHttpOnlyCookie, type CookiePolicy } from './cookies.ts';

/** Where a flash is kept: its cookie's name and path, and the key that seals it. */
export interface FlashPlace {
  readonly name: string;
  readonly path: string;
  readonly flash: Aead;
  readonly cookies: CookiePolicy;
}

const FLASH_SECONDS = 120;

/**
 * Carries a value to the next page the browser asks for under `path`: in an HttpOnly cookie, sealed and bound to the
 * account and the cookie's name, so neither another account's nor another flash's cookie opens here, and no link can
 * put words on the page.
 */
export function keepFlash(c: Context, at: FlashPlace, accountId: string, value: string): void {
  const sealed = at.flash.seal(value, `${at.name}:${accountId}`);
  setHttpOnlyCookie(c, at.cookies, at.name, sealed, FLASH_SECONDS, at.path);
}

/** The value kept by keepFlash, once: the cookie is removed by the same response that reads it. */
export function takeFlash(c: Context, at: FlashPlace, accountId: string): string | undefined {
  const sealed = readCookie(c, at.name);
  if (sealed === undefined) return undefined;
  clearCookie(c, at.cookies, at.name, at.path);
  return at.flash.open(sealed, `${at.name}:${accountId}`);
}
