import type { AccountId } from '../accounts/account.ts';

export interface SessionRecord {
  readonly idHash: string;
  readonly accountId: AccountId;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly lastSeenAt: Date;
  readonly userAgent: string | null;
}

/** Server-side sessions, keyed by the SHA-256 of the cookie value, so a database leak yields no session. */
export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session if it exists and has not expired at `now`. */
  findLive(idHash: string, now: Date): Promise<SessionRecord | undefined>;
  /** Slides expiry forward and records activity. */
  touch(idHash: string, now: Date, expiresAt: Date): Promise<void>;
  delete(idHash: string): Promise<void>;
  deleteAllFor(accountId: AccountId): Promise<number>;
  /** An account's sessions live at `now`, the most recently used first. */
  listLive(accountId: AccountId, now: Date): Promise<SessionRecord[]>;
  /** Ends every session of the account but `keepIdHash`; how many. */
  deleteOthers(accountId: AccountId, keepIdHash: string): Promise<number>;
  /** Removes the sessions expired at `now` (the housekeeping sweep, decision 0065); how many. */
  deleteExpired(now: Date): Promise<number>;
}
