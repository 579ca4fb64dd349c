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

/**
 * `prefix_` + 20 characters like `newId`, of which the first 9 are the time in milliseconds (base 36, fixed width,
 * so ids made later sort later, until the year 5138) and the other 11 random (~56 bits). For rows written in bulk
 * under an index on their id: a random id puts each new row on a random page of that index, so a batch of 250 dirtied
 * ~250 pages; ids that follow the clock land together at the index's end (decision 0037). Nothing relies on the
 * order for meaning; the time comes from `Date.now()` because only locality depends on it.
 */
export function newTimeOrderedId<P extends string>(prefix: P, nowMs = Date.now()): `${P}_${string}` {
  return `${prefix}_${Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0').slice(-9)}${randomToken(11)}`;
}
