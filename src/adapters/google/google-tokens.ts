import { createHash } from 'node:crypto';
import type { AccessToken } from './google-oauth.ts';

/** Refreshes this long before the expiry Google announced, so a request never starts with a dying token. */
const EARLY_MS = 60_000;

/**
 * Access tokens per Google sign-in, shared by every concurrent call in this process: one refresh at a time per
 * refresh token (callers arriving meanwhile wait for it), reused until a minute before expiry. Keyed by a hash of
 * the refresh token, so a new sign-in never reuses the old sign-in's access token and no token is a map key.
 */
export class GoogleAccessTokens {
  private readonly refresh: (refreshToken: string) => Promise<AccessToken>;
  private readonly now: () => number;
  private readonly cache = new Map<string, AccessToken>();
  private readonly pending = new Map<string, Promise<AccessToken>>();

  constructor(refresh: (refreshToken: string) => Promise<AccessToken>, now: () => number = Date.now) {
    this.refresh = refresh;
    this.now = now;
  }

  /** A usable access token; `force` refreshes even a cached one (the API just answered 401). */
  async get(refreshToken: string, opts: { force?: boolean } = {}): Promise<string> {
    const key = keyOf(refreshToken);
    const cached = this.cache.get(key);
    if (opts.force !== true && cached !== undefined && cached.expiresAt - EARLY_MS > this.now())
      return cached.token;
    let running = this.pending.get(key);
    if (running === undefined) {
      running = this.refresh(refreshToken).finally(() => this.pending.delete(key));
      this.pending.set(key, running);
    }
    try {
      const fresh = await running;
      this.cache.set(key, fresh);
      return fresh.token;
    } catch (e) {
      this.cache.delete(key);
      throw e;
    }
  }

  /** Forgets a sign-in's access token (revoked, or the inbox removed). */
  forget(refreshToken: string): void {
    this.cache.delete(keyOf(refreshToken));
  }

  /** Refreshes performed or running (for tests): the cache size. */
  get size(): number {
    return this.cache.size;
  }
}

function keyOf(refreshToken: string): string {
  return createHash('sha256').update(refreshToken).digest('base64url');
}
