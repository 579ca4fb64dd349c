import type { AccountId } from '../accounts/account.ts';

export interface VipEntry {
  readonly kind: 'email' | 'domain';
  readonly value: string;
}

export interface VipStore {
  list(accountId: AccountId): Promise<VipEntry[]>;
  add(accountId: AccountId, entries: readonly VipEntry[], now: Date): Promise<void>;
  remove(accountId: AccountId, entries: readonly VipEntry[]): Promise<number>;
}
