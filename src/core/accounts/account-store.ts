import type { Result } from '../../lib/result.ts';
import type { Account, AccountId, PaymentState, Plan } from './account.ts';

export interface NewAccount {
  readonly id: AccountId;
  readonly email: string;
  readonly plan: Plan;
  readonly trialEndsAt: Date | null;
  readonly createdAt: Date;
  /** argon2id hash; null for accounts made by the operator CLI before their owner set a password. */
  readonly passwordHash?: string | null;
}

/**
 * Accounts are the unit of tenancy: every other record hangs off one, and deleting an account deletes
 * everything below it (inboxes, folders, messages, credentials, keys, tokens) in one statement.
 */
export interface AccountStore {
  /** Atomic on the email: of concurrent creates with the same (case-folded) email exactly one succeeds. */
  create(account: NewAccount): Promise<Result<Account, 'email_taken'>>;
  get(id: AccountId): Promise<Account | undefined>;
  findByEmail(email: string): Promise<Account | undefined>;
  count(): Promise<number>;
  /** Oldest first; for the operator CLI. */
  list(): Promise<Account[]>;
  setPlan(id: AccountId, plan: Plan, trialEndsAt: Date | null): Promise<Account | undefined>;
  setPaymentState(id: AccountId, state: PaymentState): Promise<Account | undefined>;
  /** Kept apart from `Account` so the hash never travels with the account object. */
  getPasswordHash(id: AccountId): Promise<string | null | undefined>;
  setPasswordHash(id: AccountId, hash: string): Promise<void>;
  /** Cascades to every record the account owns. Returns false when there was no such account. */
  delete(id: AccountId): Promise<boolean>;
}
