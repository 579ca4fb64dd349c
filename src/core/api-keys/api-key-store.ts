import type { Result } from '../../lib/result.ts';
import type { Account, AccountId } from '../accounts/account.ts';
import type { Allowed } from '../auth/allowed.ts';
import type { ApiKey, ApiKeyId } from './api-key.ts';

export interface NewApiKey extends Omit<ApiKey, 'lastUsedAt' | 'revokedAt'> {
  readonly hash: string;
}

export interface ApiKeyStore {
  /**
   * Inserts the key unless the account already has `maxActive` active keys. Atomic per account: of concurrent
   * creates, never more than `maxActive` keys end up active.
   */
  createWithinLimit(key: NewApiKey, maxActive: number): Promise<Result<ApiKey, 'limit_reached'>>;
  /** Newest first, revoked ones included. */
  list(accountId: AccountId): Promise<ApiKey[]>;
  /** Returns false when the key is unknown, of another account, or already revoked. */
  revoke(accountId: AccountId, id: ApiKeyId, now: Date): Promise<boolean>;
  revokeAll(accountId: AccountId, now: Date): Promise<number>;
  /** An active (not revoked) key by the SHA-256 of its full value, with its account, in one read. */
  findActiveByHash(hash: string): Promise<{ key: ApiKey; account: Account } | undefined>;
  touch(id: ApiKeyId, now: Date): Promise<void>;
  /** Sets what an active key of the account may do, and where; false when the key is unknown, another's, or revoked. */
  setAllowed(accountId: AccountId, id: ApiKeyId, allowed: Allowed): Promise<boolean>;
}
