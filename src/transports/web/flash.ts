import type { Context } from 'hono';
import type { Aead } from '../../lib/aead.ts';
import { clearCookie, readCookie, setHttpOnlyCookie, type CookiePolicy } from './cookies.ts';

/** Where a flash is kept: its cookie's name and path, the key that seals it, and how long it lives. */
export interface FlashPlace {
  readonly name: string;
  readonly path: string;
  readonly flash: Aead;
  readonly cookies: CookiePolicy;
  /** Seconds; two minutes when not given. */
  readonly seconds?: number;
}

const FLASH_SECONDS = 120;

/**
 * Carries a value to the next page the browser asks for under `path`: in an HttpOnly cookie, sealed and bound to the
 * account and the cookie's name, so neither another account's nor another flash's cookie opens here, and no link can
 * put words on the page.
 */
export function keepFlash(c: Context, at: FlashPlace, accountId: string, value: string): void {
  const sealed = at.flash.seal(value, `${at.name}:${accountId}`);
  setHttpOnlyCookie(c, at.cookies, at.name, sealed, at.seconds ?? FLASH_SECONDS, at.path);
}

/** The value kept by keepFlash, once: the cookie is removed by the same response that reads it. */
export function takeFlash(c: Context, at: FlashPlace, accountId: string): string | undefined {
  const opened = peekFlash(c, at, accountId);
  if (readCookie(c, at.name) !== undefined) dropFlash(c, at);
  return opened;
}

/** The value kept by keepFlash, left in place for the next request too (a form shown again after a mistake). */
export function peekFlash(c: Context, at: FlashPlace, accountId: string): string | undefined {
  const sealed = readCookie(c, at.name);
  return sealed === undefined ? undefined : at.flash.open(sealed, `${at.name}:${accountId}`);
}

/** Removes a flash kept by keepFlash, unread. */
export function dropFlash(c: Context, at: FlashPlace): void {
  clearCookie(c, at.cookies, at.name, at.path);
}
