import { createHash } from 'node:crypto';
import type { AccessToken } from './provider-oauth.ts';

/** Refreshes this long before the expiry the provider announced, so a request never starts with a dying token. */
const EARLY_MS = 60_000;

interface Entry {
  readonly token: AccessToken;
  /** Hashes of every refresh token of this sign-in's lineage (a rotation adds one). */
  readonly lineage: Set<string>;
  /** The newest refresh token: the one to refresh with (after a rotation the stored one may still be the old). */
  readonly latest: string;
}

/**
 * Access tokens per mailbox sign-in, shared by every concurrent call in this process: one refresh at a time per
 * sign-in (its callers arriving meanwhile wait for it), reused until a minute before expiry. A provider that rotates
 * refresh tokens (Microsoft) hands back a new one with each refresh: it is passed to `onRotated` (which stores it
 * sealed) before anyone uses the new access token, and the old one is not used again. A sign-in that is not of
 * this lineage (the person signed in again) starts afresh, beside the old one, which sessions opened before it still
 * use (decision 0038). Keys are the caller's (the inbox id); no token is a key.
 */
export class AccessTokens {
  private readonly refresh: (refreshToken: string) => Promise<AccessToken>;
  private readonly now: () => number;
  /**
   * Per mailbox, the tokens of its latest sign-ins (newest first, at most two): a session opened before the person
   * signed in again still holds the old one, and neither may take the other's place.
   */
  private readonly cache = new Map<string, Entry[]>();
  /** The refreshes running per mailbox, each with the lineage it refreshes: only callers of that lineage wait. */
  private readonly pending = new Map<string, { lineage: ReadonlySet<string>; entry: Promise<Entry> }[]>();

  constructor(refresh: (refreshToken: string) => Promise<AccessToken>, now: () => number = Date.now) {
    this.refresh = refresh;
    this.now = now;
  }

  /**
   * A usable access token for `key`, whose stored refresh token is `refreshToken`; `force` refreshes even a cached
   * one (the API just answered 401).
   */
  async get(
    key: string,
    refreshToken: string,
    opts: { force?: boolean; onRotated?: (refreshToken: string) => Promise<void> } = {},
  ): Promise<string> {
    const mine = hash(refreshToken);
    const entry = this.cache.get(key)?.find((e) => e.lineage.has(mine));
    if (opts.force !== true && entry !== undefined && entry.token.expiresAt - EARLY_MS > this.now())
      return entry.token.token;
    // A refresh already running for this sign-in is waited for. One running for another sign-in of the mailbox
    // (the one the person just replaced, failing with its revoked token) is not: this caller refreshes its own.
    let running = this.pending.get(key)?.find((p) => p.lineage.has(mine))?.entry;
    if (running === undefined) {
      const from = entry?.latest ?? refreshToken;
      const known = new Set(entry?.lineage ?? [hash(from)]);
      known.add(mine);
      const started: Promise<Entry> = this.refresh(from)
        .then(async (token) => {
          const lineage = new Set(known);
          let latest = from;
          if (token.refreshToken !== undefined) {
            await opts.onRotated?.(token.refreshToken);
            lineage.add(hash(token.refreshToken));
            latest = token.refreshToken;
          }
          const fresh = { token, lineage, latest };
          const others = (this.cache.get(key) ?? []).filter((e) => !e.lineage.has(hash(from)));
          this.cache.set(key, [fresh, ...others].slice(0, 2));
          return fresh;
        })
        .finally(() => {
          keepOnly(this.pending, key, (p) => p.entry !== started);
        });
      running = started;
      this.pending.set(key, [...(this.pending.get(key) ?? []), { lineage: known, entry: started }]);
    }
    try {
      return (await running).token.token;
    } catch (e) {
      // Only this sign-in's token is dropped: another's, in use by newer sessions, stays.
      keepOnly(this.cache, key, (x) => !x.lineage.has(mine));
      throw e;
    }
  }

  /** Forgets a mailbox's access token (the sign-in was revoked, or the inbox removed). */
  forget(key: string): void {
    this.cache.delete(key);
  }

  /** Mailboxes with a cached token (for tests). */
  get size(): number {
    return this.cache.size;
  }
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Keeps the key's values that pass; a key left with none is removed. */
function keepOnly<V>(map: Map<string, V[]>, key: string, keep: (v: V) => boolean): void {
  const left = (map.get(key) ?? []).filter(keep);
  if (left.length === 0) map.delete(key);
  else map.set(key, left);
}
