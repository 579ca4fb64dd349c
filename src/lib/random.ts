// Web Crypto is available in every runtime we target, so core code can mint ids without importing node:crypto.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random string over [a-z0-9]; 20 characters carry ~103 bits. Rejection sampling keeps it unbiased. */
export function randomToken(length: number): string {
  let out = '';
  const limit = 256 - (256 % ALPHABET.length);
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < limit && out.length < length) out += ALPHABET.charAt(b % ALPHABET.length);
    }
  }
  return out;
}

/** `prefix_` + 20 random characters, e.g. `inbox_k3v9…`. */
export function newId<P extends string>(prefix: P): `${P}_${string}` {
  return `${prefix}_${randomToken(20)}`;
}
