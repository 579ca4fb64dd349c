import type { AccountId } from '../accounts/account.ts';

/** An account's second factor for signing in to the console (decision 0089). */
export interface SecondFactor {
  /** The TOTP secret, in base 32; null when it cannot be opened (sealed under a key lost since): no code matches. */
  readonly secret: string | null;
  /** The latest step whose code was used: a code of it or an earlier one is refused (RFC 6238 §5.2). */
  readonly lastStep: number;
  /** How many recovery codes are unspent. */
  readonly recoveryCodesLeft: number;
  readonly createdAt: Date;
}

/**
 * Second factors, their secrets sealed at rest and their recovery codes kept only as SHA-256 hashes. Every spend is
 * one conditional statement, so a code used at once in two requests, on two nodes, signs in once.
 */
export interface SecondFactorStore {
  get(accountId: AccountId): Promise<SecondFactor | undefined>;
  /** Turns it on with the step of the code that confirmed it (spent) and the recovery codes' hashes; false if on. */
  enable(
    accountId: AccountId,
    secret: string,
    confirmedStep: number,
    recoveryHashes: readonly string[],
    now: Date,
  ): Promise<boolean>;
  /** Spends a code of `step`: false when a code of this step or a later one was spent (a replay), or none is on. */
  spendStep(accountId: AccountId, step: number): Promise<boolean>;
  /** Spends a recovery code by its hash: false when it is not one of the account's or was spent. */
  spendRecoveryCode(accountId: AccountId, hash: string): Promise<boolean>;
  /** Replaces every recovery code with these hashes, in one transaction; false when it is off. */
  replaceRecoveryCodes(accountId: AccountId, recoveryHashes: readonly string[]): Promise<boolean>;
  /** Turns it off, the recovery codes with it; false when it was off. */
  disable(accountId: AccountId): Promise<boolean>;
}
