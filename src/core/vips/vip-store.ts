import type { Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';

export interface VipEntry {
  readonly kind: 'email' | 'domain';
  readonly value: string;
}

export interface VipStore {
  list(accountId: AccountId): Promise<VipEntry[]>;
  /**
   * Adds the entries not there yet — all of them, or none when the list would then hold more than `max` (atomic
   * against other adds to the account's list, on every node).
   */
  add(
    accountId: AccountId,
    entries: readonly VipEntry[],
    now: Date,
    max: number,
  ): Promise<Result<{ readonly listed: number }, { readonly listed: number }>>;
  remove(accountId: AccountId, entries: readonly VipEntry[]): Promise<number>;
}
