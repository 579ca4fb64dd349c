import type { Clock } from '../../lib/clock.ts';
import { randomToken } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import { matchingStep, newTotpSecret } from '../../lib/totp.ts';
import type { AccountId } from '../accounts/account.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import { heldFor, spendFailure } from './failure-budgets.ts';
import type { SecondFactorStore } from './second-factor-store.ts';
import { eventOf, type Client, type SignInEventKind, type SignInHistory } from './sign-in-history.ts';

export interface SecondFactorServiceDeps {
  readonly factors: SecondFactorStore;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Wrong codes allowed per account in the window; lockouts grow as the password's do (decision 0025). */
  readonly failures: RateRule;
  /** Where turning it on or off, new recovery codes and wrong codes are recorded for the person (decision 0091). */
  readonly history: SignInHistory;
}

/** How many recovery codes a person gets, and their length (letters and digits, shown in two groups of five). */
const RECOVERY_CODES = 10;
const RECOVERY_CHARS = 10;

export type CodeError =
  { readonly code: 'wrong_code' } | { readonly code: 'rate_limited'; readonly retryAfterSeconds: number };

export interface SecondFactorStatus {
  readonly on: boolean;
  readonly since?: Date;
  readonly recoveryCodesLeft?: number;
}

/**
 * A second factor for the console's sign-in (decision 0089): a code from an authenticator app (TOTP, RFC 6238), or one
 * of ten single-use recovery codes. A code is spent when it is used — a code of the same or an earlier step, or a
 * spent recovery code, is refused — and wrong codes spend a per-account budget with growing lockouts, so that six
 * digits cannot be walked through by someone who has the password.
 */
export class SecondFactorService {
  private readonly deps: SecondFactorServiceDeps;
  constructor(deps: SecondFactorServiceDeps) {
    this.deps = deps;
  }

  async status(accountId: AccountId): Promise<SecondFactorStatus> {
    const f = await this.deps.factors.get(accountId);
    return f === undefined
      ? { on: false }
      : { on: true, since: f.createdAt, recoveryCodesLeft: f.recoveryCodesLeft };
  }

  async isOn(accountId: AccountId): Promise<boolean> {
    return (await this.deps.factors.get(accountId)) !== undefined;
  }

  /** A new secret to show the person; nothing is stored until a code from it confirms it (`enable`). */
  newSecret(): string {
    return newTotpSecret();
  }

  /**
   * Turns the second factor on with `secret`, once a code from the person's app shows they hold it. The recovery
   * codes, in the clear, to be shown once; only their hashes are kept.
   */
  async enable(
    accountId: AccountId,
    secret: string,
    code: string,
    client: Client,
  ): Promise<Result<readonly string[], CodeError | { readonly code: 'already_on' }>> {
    const wait = await heldFor(this.deps.limiter, [[this.deps.failures, accountId]]);
    if (wait > 0) return err({ code: 'rate_limited', retryAfterSeconds: wait });
    const now = this.deps.clock.now();
    const step = /^[A-Z2-7]{32}$/.test(secret) ? matchingStep(secret, code, now) : undefined;
    if (step === undefined) {
      await spendFailure(this.deps.limiter, this.deps.failures, accountId);
      return err({ code: 'wrong_code' });
    }
    const codes = newRecoveryCodes();
    const on = await this.deps.factors.enable(accountId, secret, step, codes.map(recoveryHash), now);
    if (!on) return err({ code: 'already_on' });
    await this.note(accountId, 'two_step_on', client);
    return ok(codes);
  }

  /**
   * Ten new recovery codes in place of every one left (the caller has checked the person: their password and a code).
   * Shown once, as at turning on; undefined when two-step sign-in is off.
   */
  async replaceRecoveryCodes(accountId: AccountId, client: Client): Promise<readonly string[] | undefined> {
    const codes = newRecoveryCodes();
    if (!(await this.deps.factors.replaceRecoveryCodes(accountId, codes.map(recoveryHash)))) return undefined;
    await this.note(accountId, 'recovery_codes_replaced', client);
    return codes;
  }

  /**
   * Checks and spends a code: six digits from the app, or a recovery code. Wrong (or already used) spends a failure;
   * right forgets the account's failures. An account without a second factor has no right code.
   */
  async check(
    accountId: AccountId,
    code: string,
    client: Client,
  ): Promise<Result<'code' | 'recovery_code', CodeError>> {
    const { factors, limiter, failures } = this.deps;
    const wait = await heldFor(limiter, [[failures, accountId]]);
    if (wait > 0) return err({ code: 'rate_limited', retryAfterSeconds: wait });
    const factor = await factors.get(accountId);
    let right: 'code' | 'recovery_code' | undefined;
    if (factor !== undefined && code.length <= 40) {
      const step =
        factor.secret === null ? undefined : matchingStep(factor.secret, code, this.deps.clock.now());
      if (step !== undefined) right = (await factors.spendStep(accountId, step)) ? 'code' : undefined;
      else
        right = (await factors.spendRecoveryCode(accountId, recoveryHash(code)))
          ? 'recovery_code'
          : undefined;
    }
    if (right === undefined) {
      await spendFailure(limiter, failures, accountId);
      await this.note(accountId, 'wrong_code', client);
      return err({ code: 'wrong_code' });
    }
    await limiter.reset(failures, accountId);
    return ok(right);
  }

  /** Turns it off (the caller has checked the person: their password and a code, or the operator). */
  async disable(accountId: AccountId, by: Client | 'operator'): Promise<boolean> {
    if (!(await this.deps.factors.disable(accountId))) return false;
    await this.note(accountId, by === 'operator' ? 'two_step_off_by_operator' : 'two_step_off', by);
    return true;
  }

  private note(accountId: AccountId, kind: SignInEventKind, client: Client | 'operator'): Promise<void> {
    return this.deps.history.record(eventOf(accountId, kind, this.deps.clock.now(), client));
  }
}

/** Ten recovery codes: letters and digits, five, a dash, five more. */
function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const raw = randomToken(RECOVERY_CHARS);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/** A recovery code's hash as stored: as the person may type it, any case, with or without its dash and spaces. */
function recoveryHash(code: string): string {
  return sha256Hex(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}
