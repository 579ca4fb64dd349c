import { createHash, createHmac, hash } from 'node:crypto';
import { randomToken } from './random.ts';

/**
 * Bearer secrets (API keys, session ids, one-time links) are high-entropy random strings, stored only as their
 * SHA-256. Looking one up by hash needs no constant-time comparison (an attacker cannot steer the hash), and a
 * database leak reveals nothing usable.
 */
export function newSecret(prefix: string, length = 40): string {
  return `${prefix}${randomToken(length)}`;
}

/**
 * Synchronous on purpose: it runs on every authenticated request, and a thread-pool round trip costs more. The
 * one-shot `crypto.hash` skips the Hash object `createHash` builds (measured ~2× faster for a token).
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time equality for secrets compared directly (short codes, CSRF tokens). */
export function timingSafeEqualStrings(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i % Math.max(y.length, 1)] ?? 0);
  return diff === 0;
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * A secret shaped like `newSecret(prefix, length)` (at most 43 characters, ~222 bits) that is a function of `text`
 * under `key`: whoever presents the same text gets the same secret, and no one without the key can compute it.
 * The HMAC-SHA-256 read as a number, reduced modulo 36^length and written in base 36 (bias ≤ 2^-33).
 */
export function derivedSecret(prefix: string, key: Uint8Array, text: string, length = 43): string {
  if (length > 43) throw new RangeError('A derived secret carries at most 43 base-36 characters.');
  const mac = createHmac('sha256', key).update(text, 'utf8').digest('hex');
  return prefix + (BigInt(`0x${mac}`) % 36n ** BigInt(length)).toString(36).padStart(length, '0');
}

/** HMAC-SHA-256 of `text` under `key`, base64url: a value only the holder of the key can have made. */
export function hmacSha256(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
}
