// Web Crypto is available in every runtime we target, so core code can mint ids without importing node:crypto.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

const LIMIT = 256 - (256 % ALPHABET.length);
// Random bytes are drawn in blocks: one getRandomValues call per token cost ~3 µs, which a first sync minting
// 10,000 message ids paid 10,000 times. A consumed byte is never reused.
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

function randomByte(): number {
  if (poolAt === POOL.length) {
    crypto.getRandomValues(POOL);
    poolAt = 0;
  }
  return POOL[poolAt++] ?? 0;
}

/** A random string over [a-z0-9]; 20 characters carry ~103 bits. Rejection sampling keeps it unbiased. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < LIMIT) out += ALPHABET.charAt(b % ALPHABET.length);
  }
  return out;
}

/** `prefix_` + 20 random characters, e.g. `inbox_k3v9…`. */
export function newId<P extends string>(prefix: P): `${P}_${string}` {
  return `${prefix}_${randomToken(20)}`;
}
