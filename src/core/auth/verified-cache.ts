import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import type { BearerVerifier, Verified } from './principal.ts';

export interface VerifiedCacheOptions {
  /** How long a verified credential is believed without asking the store again; 0 turns the cache off. */
  readonly ttlMs: number;
  readonly clock: Clock;
  /** Bound on remembered credentials per verifier; the oldest is dropped first. */
  readonly maxEntries?: number;
}

interface Entry {
  readonly verified: Verified;
  /** Epoch ms after which the entry is not used: the TTL, or the credential's own expiry if sooner. */
  readonly until: number;
}

/**
 * Remembers, for a few seconds, which bearer credentials were verified and what they proved. Every agent call
 * starts with a credential lookup, and on a busy connection the answer is the same each time; asking the
 * database (hash, lookup, account row) was a fifth of an MCP call's CPU (docs/benchmarks-history.md).
 *
 * What keeps it safe (decision 0010):
 * - Only successes are kept: an unknown or revoked credential is looked up every time, and a new key works at once.
 * - `clear()` forgets everything and is called whenever this process revokes a key, token or grant, changes a
 *   plan or payment state, or deletes an account (the composition root wires it to those store writes), so such a
 *   change applies to the very next request. A change made by another process (the operator CLI, a second
 *   replica) applies within the TTL.
 * - An entry never outlives the credential's own expiry (access tokens).
 * - A lookup that began before a `clear()` does not fill the cache with what it found.
 * - Entries are keyed by the token's SHA-256, as the stores are; the token itself is not kept.
 */
export class VerifiedCache {
  private readonly maps: Map<string, Entry>[] = [];
  private generation = 0;
  private readonly opts: VerifiedCacheOptions;

  constructor(opts: VerifiedCacheOptions) {
    this.opts = opts;
  }

  /** `inner` with this cache in front. Each wrapped verifier keeps its own entries; `clear()` empties all. */
  wrap(inner: BearerVerifier): BearerVerifier {
    const { ttlMs, clock } = this.opts;
    if (ttlMs <= 0) return inner;
    const max = this.opts.maxEntries ?? 10_000;
    const entries = new Map<string, Entry>();
    this.maps.push(entries);
    return {
      verify: async (token) => {
        const key = sha256Hex(token);
        const now = clock.now().getTime();
        const hit = entries.get(key);
        if (hit !== undefined) {
          if (hit.until > now) return hit.verified;
          entries.delete(key);
        }
        const generation = this.generation;
        const verified = await inner.verify(token);
        if (verified === undefined || generation !== this.generation) return verified;
        const expires = verified.principal.expiresAt?.getTime() ?? Infinity;
        if (entries.size >= max) {
          const oldest = entries.keys().next();
          if (oldest.done !== true) entries.delete(oldest.value);
        }
        entries.set(key, { verified, until: Math.min(now + ttlMs, expires) });
        return verified;
      },
    };
  }

  /** Forgets every verified credential: something that decides what a credential proves has changed. */
  clear(): void {
    this.generation++;
    for (const m of this.maps) m.clear();
  }
}
