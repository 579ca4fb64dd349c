import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import { INSTANCE_SCOPE, type JsonValue, type SettingsStore } from '../settings/settings-store.ts';
import type { Account, AccountId, PaymentState, Plan } from './account.ts';
import type { AccountStore } from './account-store.ts';
import type { InvitationStore } from './invitation-store.ts';
import { normaliseEmail, passwordProblem, type PasswordHasher } from './password-hasher.ts';

export interface AccountPolicy {
  readonly trialDays: number;
  readonly openSignup: boolean;
  readonly setupLinkTtlMs: number;
  readonly invitationTtlMs: number;
}

export interface AccountServiceDeps {
  readonly accounts: AccountStore;
  readonly invitations: InvitationStore;
  readonly settings: SettingsStore;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly policy: AccountPolicy;
  /** Runs after an account is created (the demo inbox is seeded here). */
  readonly onAccountCreated?: (account: Account) => Promise<void>;
  /**
   * Removes each of the account's inboxes as the person's own removal of one does, before the account goes: what the
   * database's cascade does not reach — a Google sign-in alive at Google, an inbox's draft counter (decisions 0126,
   * 0139) — goes with them.
   */
  readonly removeInboxes: (accountId: AccountId) => Promise<void>;
}

export type RegisterError =
  | { readonly code: 'invalid_link' }
  | { readonly code: 'invalid_email' }
  | { readonly code: 'weak_password'; readonly message: string }
  | { readonly code: 'email_taken' }
  | { readonly code: 'signup_closed' };

const SETUP_KEY = 'setup_link';
const DAY_MS = 86_400_000;

/** Creating accounts (first-run setup, invitations, open sign-up), plans, and deleting accounts. */
export class AccountService {
  private readonly deps: AccountServiceDeps;
  constructor(deps: AccountServiceDeps) {
    this.deps = deps;
  }

  async needsSetup(): Promise<boolean> {
    return (await this.deps.accounts.count()) === 0;
  }

  /** A one-time link for creating the first (owner) account; replaces any earlier one. */
  async issueSetupLink(): Promise<string> {
    const token = newSecret('', 32);
    const expiresAt = this.deps.clock.now().getTime() + this.deps.policy.setupLinkTtlMs;
    await this.deps.settings.set(
      INSTANCE_SCOPE,
      SETUP_KEY,
      { hash: sha256Hex(token), expiresAt },
      this.deps.clock.now(),
    );
    return token;
  }

  async isSetupLinkValid(token: string): Promise<boolean> {
    return this.isLink(await this.deps.settings.get(INSTANCE_SCOPE, SETUP_KEY), token);
  }

  async completeSetup(
    token: string,
    email: string,
    password: string,
  ): Promise<Result<Account, RegisterError>> {
    const stored = await this.deps.settings.get(INSTANCE_SCOPE, SETUP_KEY);
    if (!this.isLink(stored, token) || !(await this.needsSetup())) return err({ code: 'invalid_link' });
    const problem = this.problem(email, password);
    if (problem) return err(problem);
    // One link, one account: of setups sent at once (two tabs, two nodes), only the one that takes the link (a
    // compare-and-set to null) goes on. Checked first and deleted once the account was made, each made an account.
    if (!(await this.deps.settings.replace(INSTANCE_SCOPE, SETUP_KEY, stored, null, this.deps.clock.now())))
      return err({ code: 'invalid_link' });
    return this.register(email, password);
  }

  /** The stored setup link (undefined, or null once taken) is this token's, and not expired. */
  private isLink(stored: JsonValue | undefined, token: string): boolean {
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
    const { hash, expiresAt } = stored;
    return (
      typeof hash === 'string' &&
      typeof expiresAt === 'number' &&
      expiresAt > this.deps.clock.now().getTime() &&
      hash === sha256Hex(token)
    );
  }

  async issueInvitation(email: string | null): Promise<Result<string, 'invalid_email'>> {
    const normalised = email === null ? null : normaliseEmail(email);
    if (normalised === undefined) return err('invalid_email');
    const token = newSecret('', 32);
    const now = this.deps.clock.now();
    await this.deps.invitations.create({
      idHash: sha256Hex(token),
      email: normalised,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.deps.policy.invitationTtlMs),
    });
    return ok(token);
  }

  async invitationFor(token: string): Promise<{ email: string | null } | undefined> {
    const inv = await this.deps.invitations.findLive(sha256Hex(token), this.deps.clock.now());
    return inv && { email: inv.email };
  }

  async acceptInvitation(
    token: string,
    email: string,
    password: string,
  ): Promise<Result<Account, RegisterError>> {
    const idHash = sha256Hex(token);
    const inv = await this.deps.invitations.findLive(idHash, this.deps.clock.now());
    if (inv === undefined) return err({ code: 'invalid_link' });
    if (inv.email !== null && inv.email !== normaliseEmail(email)) return err({ code: 'invalid_email' });
    const problem = this.problem(email, password);
    if (problem) return err(problem);
    if (!(await this.deps.invitations.consume(idHash, this.deps.clock.now())))
      return err({ code: 'invalid_link' });
    return this.register(email, password);
  }

  async signUp(email: string, password: string): Promise<Result<Account, RegisterError>> {
    if (!this.deps.policy.openSignup) return err({ code: 'signup_closed' });
    return this.register(email, password);
  }

  async setPlan(
    email: string,
    plan: Plan,
    opts: { trialDays?: number; payment?: PaymentState } = {},
  ): Promise<Account | undefined> {
    const account = await this.deps.accounts.findByEmail(email);
    if (account === undefined) return undefined;
    const trialEndsAt =
      plan === 'trial'
        ? new Date(this.deps.clock.now().getTime() + (opts.trialDays ?? this.deps.policy.trialDays) * DAY_MS)
        : null;
    const updated = await this.deps.accounts.setPlan(account.id, plan, trialEndsAt);
    return opts.payment === undefined
      ? updated
      : this.deps.accounts.setPaymentState(account.id, opts.payment);
  }

  /** Deletes the account and, by cascade, every inbox, credential, key, session and token it owns. */
  async deleteAccount(id: AccountId, password: string): Promise<Result<true, 'wrong_password'>> {
    const hash = await this.deps.accounts.getPasswordHash(id);
    if (hash === undefined || hash === null || !(await this.deps.hasher.verify(hash, password)))
      return err('wrong_password');
    await this.deps.removeInboxes(id);
    await this.deps.accounts.delete(id);
    return ok(true);
  }

  private problem(email: string, password: string): RegisterError | undefined {
    if (normaliseEmail(email) === undefined) return { code: 'invalid_email' };
    const weak = passwordProblem(password);
    return weak === undefined ? undefined : { code: 'weak_password', message: weak };
  }

  private async register(email: string, password: string): Promise<Result<Account, RegisterError>> {
    const problem = this.problem(email, password);
    if (problem) return err(problem);
    const now = this.deps.clock.now();
    const created = await this.deps.accounts.create({
      id: newId('acct') as AccountId,
      email: normaliseEmail(email) ?? email,
      plan: 'trial',
      trialEndsAt: new Date(now.getTime() + this.deps.policy.trialDays * DAY_MS),
      createdAt: now,
      passwordHash: await this.deps.hasher.hash(password),
    });
    if (!created.ok) return err({ code: 'email_taken' });
    await this.deps.onAccountCreated?.(created.value);
    return created;
  }
}
