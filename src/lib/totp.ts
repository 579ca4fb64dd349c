import { createHmac, randomBytes } from 'node:crypto';

/**
 * Time-based one-time passwords as authenticator apps make them (RFC 6238 over RFC 4226): HMAC-SHA-1, six digits, a
 * 30-second step. Those are the parameters every app takes from an `otpauth://` link; others are read wrongly by some.
 */
export const TOTP_STEP_SECONDS = 30;
const DIGITS = 6;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A new shared secret: 160 random bits (RFC 4226's recommended length), in base 32 without padding. */
export function newTotpSecret(): string {
  return base32(randomBytes(20));
}

/** The step a moment falls in. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);
}

/** The code for one step (RFC 4226 §5.3 dynamic truncation), zero-padded. */
export function totpCode(secret: string, step: number, digits = DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', unbase32(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fff_ffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code `code` is, among the step of `at` and one either side (a phone's clock a little off, a code typed
 * as it turned); undefined when none. Every step is computed, so the time taken says nothing of which matched.
 */
export function matchingStep(secret: string, code: string, at: Date): number | undefined {
  const typed = code.replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(typed)) return undefined;
  const now = totpStep(at);
  let found: number | undefined;
  for (const step of [now - 1, now, now + 1])
    if (totpCode(secret, step) === typed && found === undefined) found = step;
  return found;
}

/** The link an authenticator app reads (Google Authenticator's key URI format), as text and in the QR code. */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const q = new URLSearchParams({
    secret,
    issuer,
    algorithm: 'SHA1',
    digits: String(DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${q.toString()}`;
}

export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32.charAt((value >>> (bits - 5)) & 31);
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32.charAt((value << (5 - bits)) & 31);
  return out;
}

/** Base 32 as people copy it: any case, spaces and padding ignored. Throws on another letter. */
export function unbase32(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const v = BASE32.indexOf(ch);
    if (v < 0) throw new Error('not base 32');
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
