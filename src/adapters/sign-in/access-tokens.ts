import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MailAuthError } from '../../core/mail/mail-ports.ts';
import type { AccessToken } from './provider-oauth.ts';

/** Refreshes this long before the expiry the provider announced, so a request never starts with a dying token. */
const EARLY_MS = 60_000;
/**
 * After a refused refresh, when the stored refresh token is read again to see whether another process rotated it
 * meanwhile: at once, then twice more, for the other's write that may still be on its way (its refresh was answered
 * before ours was refused, its store follows).
 */
const REREAD_AFTER_MS = [0, 200, 1000] as const;
/** How many times a refused refresh follows a token another process stored, before the refusal stands. */
const MAX_FOLLOWS = 3;

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
 *
 * Another process on the same database may rotate the token first (several instances, decision 0024): to a provider
 * whose refresh tokens are good for one use, ours is then refused. A refusal is therefore believed only when the
 * stored token (`stored`) is still one this refresh tried; otherwise the refresh is made again with the stored one.
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
    opts: {
      force?: boolean;
      onRotated?: (refreshToken: string) => Promise<void>;
      /** The refresh token stored now, read afresh (another process may have rotated it). */
      stored?: () => Promise<string | undefined>;
    } = {},
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
      const started: Promise<Entry> = this.refreshOrFollow(from, known, opts.stored)
        .then(async ({ token, used }) => {
          const lineage = new Set(known);
          let latest = used;
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

  /**
   * Refreshes with `from`; when that is refused and the stored token has become one this refresh has not tried,
   * with that one instead (adding it to `known`, the lineage being refreshed). Resolves with the token that worked.
   */
  private async refreshOrFollow(
    from: string,
    known: Set<string>,
    stored: (() => Promise<string | undefined>) | undefined,
  ): Promise<{ token: AccessToken; used: string }> {
    let used = from;
    for (let follows = 0; ; follows++) {
      try {
        return { token: await this.refresh(used), used };
      } catch (e) {
        if (!(e instanceof MailAuthError) || stored === undefined || follows === MAX_FOLLOWS) throw e;
        let next: string | undefined;
        for (const wait of REREAD_AFTER_MS) {
          if (wait > 0) await sleep(wait);
          const now = await stored();
          if (now !== undefined && !known.has(hash(now))) {
            next = now;
            break;
          }
        }
        if (next === undefined) throw e;
        known.add(hash(next));
        used = next;
      }
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
