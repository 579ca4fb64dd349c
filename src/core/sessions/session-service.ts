import { hmacSha256, newSecret, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';
import { clientNetwork } from '../../lib/ip-address.ts';
import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { Account, AccountId } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { normaliseEmail, passwordProblem, type PasswordHasher } from '../accounts/password-hasher.ts';
import type { SecretLinkStore } from '../inboxes/secret-link-store.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import type { SessionStore } from './session-store.ts';
import { heldFor, lockoutsOf, spendFailure } from './failure-budgets.ts';
import type { CodeError, SecondFactorService } from './second-factor-service.ts';
import type { PasskeyService, SignInPasskeyError } from './passkey-service.ts';
import {
  attemptsBefore,
  eventOf,
  type AttemptsBefore,
  type Client,
  type SignInEvent,
  type SignInEventKind,
  type SignInHistory,
} from './sign-in-history.ts';

export type { Client } from './sign-in-history.ts';

export interface SessionPolicy {
  readonly ttlMs: number;
  /** Failed sign-ins allowed per account and per client address in the window, from clients not known to it. */
  readonly failuresPerAccount: RateRule;
  readonly failuresPerIp: RateRule;
  /** Failed sign-ins allowed per known device (a browser that signed in to the account before). */
  readonly failuresPerDevice: RateRule;
}

export interface SessionServiceDeps {
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly policy: SessionPolicy;
  /** Signs device tokens (derived from the encryption key), so a token names its account without a table. */
  readonly deviceKey: Uint8Array;
  /** Where password reset links are kept (by the hash of their token). */
  readonly links: SecretLinkStore;
  readonly secondFactor: SecondFactorService;
  /** Where sign-ins, refused passwords and changes to the password are recorded for the person (decision 0091). */
  readonly history: SignInHistory;
  readonly passkeys: PasskeyService;
}

/** How long a password reset link from the operator stays usable. */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;

export type SignInError =
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'rate_limited'; readonly retryAfterSeconds: number };

export type PasswordChangeError =
  | { readonly code: 'wrong_password' }
  | { readonly code: 'weak_password'; readonly message: string }
  | { readonly code: 'rate_limited'; readonly retryAfterSeconds: number }
  /** Two-step sign-in is on and the code was not right (or was used already). */
  | { readonly code: 'wrong_code' }
  /** Two-step sign-in is on and wrong codes are held. */
  | { readonly code: 'codes_held'; readonly retryAfterSeconds: number };

/** Why a person was not confirmed: the password, or with two-step sign-in on, the code. */
export type ConfirmError = Exclude<PasswordChangeError, { code: 'weak_password' }>;

export type PasswordResetError =
  { readonly code: 'invalid_link' } | { readonly code: 'weak_password'; readonly message: string };

/** A browser signed in: its session's token and the device token it keeps. */
export interface SignedIn {
  readonly token: string;
  readonly account: Account;
  readonly device: string;
}

/** The password was right and the account has a second factor: the ticket carries that to `completeSignIn`. */
export interface SecondFactorDue {
  readonly secondFactorTicket: string;
}

/** How long the second step of a sign-in may come after its password. */
const SECOND_FACTOR_TICKET_MS = 5 * 60_000;

/** How far back the history is read for what was tried before a sign-in (each lockout bounds a stranger's rows). */
const ATTEMPTS_READ = 200;

/** A browser signed in to an account, as Settings shows it (never its session's token or hash). */
export interface SignedInBrowser {
  readonly userAgent: string | null;
  readonly createdAt: Date;
  /** Used last, to the minute (a session records its use at most once a minute). */
  readonly lastSeenAt: Date;
  /** The browser asking. */
  readonly current: boolean;
}

// Verifying against a real hash when the account does not exist keeps the timing of both failures alike.
const DUMMY_HASH_PASSWORD = 'not-a-real-password-for-timing';

export class SessionService {
  private dummyHash: Promise<string> | undefined;

  private readonly deps: SessionServiceDeps;
  constructor(deps: SessionServiceDeps) {
    this.deps = deps;
  }

  /**
   * Signs in with email and password (decision 0025). Brute force is throttled per account and per client address —
   * but a browser that signed in to this account before (its device token) has a budget of its own, so a stranger
   * failing with the owner's address cannot lock the owner out of their usual browser. A success hands back a device
   * token for the browser to keep.
   */
  async signIn(
    rawEmail: string,
    password: string,
    client: Client,
  ): Promise<Result<SignedIn | SecondFactorDue, SignInError>> {
    const email = normaliseEmail(rawEmail) ?? rawEmail.trim().toLowerCase();
    const account = await this.deps.accounts.findByEmail(email);
    const tried = await this.tryPassword(account, email, password, client);
    if (tried.outcome === 'held')
      return err({ code: 'rate_limited', retryAfterSeconds: tried.retryAfterSeconds });
    if (tried.outcome === 'wrong' || account === undefined) return err({ code: 'invalid_credentials' });
    if (await this.deps.secondFactor.isOn(account.id))
      return ok({ secondFactorTicket: this.ticketFor(account) });
    return ok(await this.signedIn(account, client, 'signed_in'));
  }

  /**
   * The second step of a sign-in whose password was right (decision 0089): the ticket `signIn` gave, and a code from
   * the person's authenticator app or one of their recovery codes.
   */
  async completeSignIn(
    ticket: string,
    code: string,
    client: Client,
  ): Promise<Result<SignedIn, CodeError | { readonly code: 'ticket_expired' }>> {
    const account = await this.ticketAccount(ticket);
    if (account === undefined) return err({ code: 'ticket_expired' });
    const checked = await this.deps.secondFactor.check(account.id, code, client);
    if (!checked.ok) return checked;
    return ok(
      await this.signedIn(
        account,
        client,
        checked.value === 'recovery_code' ? 'signed_in_with_recovery_code' : 'signed_in_with_code',
      ),
    );
  }

  /**
   * A sign-in by a passkey alone (decision 0092): the authenticator verified the person, so neither the password nor a
   * code from the app is asked. Refused answers spend nothing: a signature cannot be guessed.
   */
  async signInWithPasskey(response: unknown, client: Client): Promise<Result<SignedIn, SignInPasskeyError>> {
    const verified = await this.deps.passkeys.verifySignIn(response);
    if (!verified.ok) return verified;
    const account = await this.deps.accounts.get(verified.value);
    if (account === undefined) return err({ code: 'unknown_passkey' });
    return ok(await this.signedIn(account, client, 'signed_in_with_passkey'));
  }

  private async signedIn(account: Account, client: Client, kind: SignInEventKind): Promise<SignedIn> {
    const known = this.knownDevice(account, client.device);
    await this.note(account, kind, client);
    return {
      token: await this.start(account, client.userAgent),
      account,
      device: known !== undefined && client.device !== undefined ? client.device : this.newDevice(account),
    };
  }

  /** `<account id>.<expiry ms>.<HMAC>`: the password was right for this account, for the next few minutes. */
  private ticketFor(account: Account): string {
    const expires = String(this.deps.clock.now().getTime() + SECOND_FACTOR_TICKET_MS);
    return `${account.id}.${expires}.${hmacSha256(this.deps.deviceKey, `second-factor:${account.id}:${expires}`)}`;
  }

  private async ticketAccount(ticket: string): Promise<Account | undefined> {
    if (ticket.length > 300) return undefined;
    const [id, expires, mac, extra] = ticket.split('.');
    if (id === undefined || expires === undefined || mac === undefined || extra !== undefined)
      return undefined;
    if (!/^\d{1,16}$/.test(expires) || Number(expires) <= this.deps.clock.now().getTime()) return undefined;
    const expected = hmacSha256(this.deps.deviceKey, `second-factor:${id}:${expires}`);
    if (!timingSafeEqualStrings(mac, expected)) return undefined;
    return this.deps.accounts.get(id as AccountId);
  }

  /**
   * Changes a signed-in person's password (decision 0067). The current one is checked as at sign-in, against the same
   * failure budgets — a session in someone else's hands tries passwords no faster than a stranger at the sign-in form
   * — and the new one must pass the rules of setup. Every session of the account ends, this one too: the browser that
   * made the change gets the new session returned here.
   */
  async changePassword(
    account: Account,
    current: string,
    code: string,
    next: string,
    client: Client,
  ): Promise<Result<{ token: string }, PasswordChangeError>> {
    const weak = passwordProblem(next);
    if (weak !== undefined) return err({ code: 'weak_password', message: weak });
    const confirmed = await this.confirmPerson(account, current, code, client);
    if (!confirmed.ok) return confirmed;
    const token = await this.replacePassword(account, next, client.userAgent);
    await this.note(account, 'password_changed', client);
    return ok({ token });
  }

  /**
   * Checks a signed-in person's password before something only they may do (changing it, deleting the account),
   * against the sign-in failure budgets: a session in someone else's hands is no password oracle (decision 0067).
   */
  async confirmPassword(
    account: Account,
    password: string,
    client: Client,
  ): Promise<Result<true, Extract<ConfirmError, { code: 'wrong_password' | 'rate_limited' }>>> {
    const tried = await this.tryPassword(account, account.email, password, client);
    if (tried.outcome === 'held')
      return err({ code: 'rate_limited', retryAfterSeconds: tried.retryAfterSeconds });
    return tried.outcome === 'wrong' ? err({ code: 'wrong_password' }) : ok(true);
  }

  /**
   * The person confirmed as at sign-in before a change to their way in or their account (the password, adding a
   * passkey, deleting the account): the password, and with two-step sign-in on, a code (spent) — a session and a
   * phished password in someone else's hands do not make it theirs (decision 0092).
   */
  async confirmPerson(
    account: Account,
    password: string,
    code: string,
    client: Client,
  ): Promise<Result<true, ConfirmError>> {
    const confirmed = await this.confirmPassword(account, password, client);
    if (!confirmed.ok || !(await this.deps.secondFactor.isOn(account.id))) return confirmed;
    const checked = await this.deps.secondFactor.check(account.id, code, client);
    if (checked.ok) return ok(true);
    return checked.error.code === 'rate_limited'
      ? err({ code: 'codes_held', retryAfterSeconds: checked.error.retryAfterSeconds })
      : err({ code: 'wrong_code' });
  }

  /**
   * A one-time link's token for setting a new password without the old one (`inbox-triage account reset-password`,
   * decision 0067): the operator hands it to the person who forgot theirs. Usable once, for an hour.
   */
  async issuePasswordReset(rawEmail: string): Promise<Result<string, 'no_account'>> {
    const account = await this.deps.accounts.findByEmail(normaliseEmail(rawEmail) ?? rawEmail.trim());
    if (account === undefined) return err('no_account');
    const token = newSecret('', 32);
    const now = this.deps.clock.now();
    await this.deps.links.create({
      idHash: sha256Hex(token),
      purpose: 'password_reset',
      accountId: account.id,
      inboxId: null,
      payload: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
    });
    return ok(token);
  }

  /** The account a live reset link is for. */
  async passwordResetFor(token: string): Promise<Account | undefined> {
    if (token === '' || token.length > 200) return undefined;
    const link = await this.deps.links.find(sha256Hex(token), 'password_reset', this.deps.clock.now());
    return link === undefined ? undefined : this.deps.accounts.get(link.accountId);
  }

  /**
   * Sets the password a reset link was issued for, once: every session of the account ends, the sign-in lockouts of
   * its address are lifted (the operator vouched for the person), and the browser that used the link is signed in —
   * unless the account has a second factor (decision 0089): a link replaces the password, not the code, so that
   * browser signs in as any other (`token` null).
   */
  async resetPassword(
    token: string,
    next: string,
    client: Client,
  ): Promise<Result<{ token: string | null; account: Account }, PasswordResetError>> {
    const account = await this.passwordResetFor(token);
    if (account === undefined) return err({ code: 'invalid_link' });
    const weak = passwordProblem(next);
    if (weak !== undefined) return err({ code: 'weak_password', message: weak });
    if (!(await this.deps.links.consume(sha256Hex(token), this.deps.clock.now())))
      return err({ code: 'invalid_link' });
    const { failuresPerAccount } = this.deps.policy;
    await this.deps.limiter.reset(failuresPerAccount, account.email);
    await this.deps.limiter.reset(lockoutsOf(failuresPerAccount), account.email);
    await this.note(account, 'password_reset', client);
    if (await this.deps.secondFactor.isOn(account.id)) {
      await this.setPassword(account, next);
      return ok({ token: null, account });
    }
    return ok({ token: await this.replacePassword(account, next, client.userAgent), account });
  }

  /** The new password's hash in place of the old, every session of the account ended, and a new one started. */
  private async replacePassword(account: Account, next: string, userAgent: string | null): Promise<string> {
    await this.setPassword(account, next);
    return this.start(account, userAgent);
  }

  /** The new password's hash in place of the old, and every session of the account ended. */
  private async setPassword(account: Account, next: string): Promise<void> {
    await this.deps.accounts.setPasswordHash(account.id, await this.deps.hasher.hash(next));
    await this.deps.sessions.deleteAllFor(account.id);
  }

  /**
   * One password tried against the failure budgets (decision 0025): while they hold, refused unchecked; wrong, every
   * budget spends a failure; right, the failures of the account's address (or of the known device) are forgotten.
   * `device` is the known device's key when the browser showed one.
   */
  private async tryPassword(
    account: Account | undefined,
    email: string,
    password: string,
    client: Client,
  ): Promise<
    | { readonly outcome: 'held'; readonly retryAfterSeconds: number }
    | { readonly outcome: 'wrong' }
    | { readonly outcome: 'right'; readonly device: string | undefined }
  > {
    const { accounts, hasher, limiter, policy } = this.deps;
    const device = account === undefined ? undefined : this.knownDevice(account, client.device);
    const rules = this.budgetsFor(email, client.ip, device);
    const wait = await heldFor(this.deps.limiter, rules);
    if (wait > 0) return { outcome: 'held', retryAfterSeconds: wait };
    const hash = account === undefined ? undefined : await accounts.getPasswordHash(account.id);
    let valid = false;
    if (hash === undefined || hash === null) await hasher.verify(await this.dummy(), password);
    else valid = await hasher.verify(hash, password);
    if (!valid) {
      for (const [rule, key] of rules) await spendFailure(this.deps.limiter, rule, key);
      if (account !== undefined) await this.note(account, 'wrong_password', client);
      return { outcome: 'wrong' };
    }
    if (device === undefined) await limiter.reset(policy.failuresPerAccount, email);
    else await limiter.reset(policy.failuresPerDevice, device);
    return { outcome: 'right', device };
  }

  /**
   * The failure budgets a password check spends from: a browser that signed in to the account before has its own;
   * any other is counted against the account's address and the client's (decision 0025).
   */
  private budgetsFor(email: string, ip: string, device: string | undefined): [RateRule, string][] {
    const { policy } = this.deps;
    return device === undefined
      ? [
          [policy.failuresPerAccount, email],
          [policy.failuresPerIp, clientNetwork(ip)],
        ]
      : [[policy.failuresPerDevice, device]];
  }

  /** A device token for a browser that just proved itself: `<nonce>.<HMAC(account id, nonce)>`. */
  newDevice(account: Account): string {
    const nonce = newSecret('', 24);
    return `${nonce}.${hmacSha256(this.deps.deviceKey, `${account.id}:${nonce}`)}`;
  }

  /** The device's nonce when the token was made for this account; undefined for no, a forged or another's token. */
  private knownDevice(account: Account, token: string | undefined): string | undefined {
    if (token === undefined || token.length > 200) return undefined;
    const [nonce, mac, extra] = token.split('.');
    if (nonce === undefined || mac === undefined || extra !== undefined || !/^[a-z0-9]{24}$/.test(nonce))
      return undefined;
    const expected = hmacSha256(this.deps.deviceKey, `${account.id}:${nonce}`);
    return timingSafeEqualStrings(mac, expected) ? `${account.id}:${nonce}` : undefined;
  }

  /** Opens a session for an account that just proved itself (sign-in, setup, invitation). */
  async start(account: Account, userAgent: string | null): Promise<string> {
    const token = newSecret('', 43);
    const now = this.deps.clock.now();
    await this.deps.sessions.create({
      idHash: sha256Hex(token),
      accountId: account.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.deps.policy.ttlMs),
      userAgent: userAgent?.slice(0, 200) ?? null,
    });
    return token;
  }

  /** The signed-in account, sliding the session's expiry at most once a minute. */
  async authenticate(token: string): Promise<Account | undefined> {
    if (token === '' || token.length > 200) return undefined;
    const now = this.deps.clock.now();
    const idHash = sha256Hex(token);
    const session = await this.deps.sessions.findLive(idHash, now);
    if (session === undefined) return undefined;
    const account = await this.deps.accounts.get(session.accountId);
    if (account === undefined) return undefined;
    if (now.getTime() - session.lastSeenAt.getTime() > 60_000) {
      await this.deps.sessions.touch(idHash, now, new Date(now.getTime() + this.deps.policy.ttlMs));
    }
    return account;
  }

  async signOut(token: string): Promise<void> {
    await this.deps.sessions.delete(sha256Hex(token));
  }

  /** The browsers signed in to the account, last used first; the one holding `currentToken` is marked. */
  async browsers(account: Account, currentToken: string): Promise<SignedInBrowser[]> {
    const current = sha256Hex(currentToken);
    return (await this.deps.sessions.listLive(account.id, this.deps.clock.now())).map((s) => ({
      userAgent: s.userAgent,
      createdAt: s.createdAt,
      lastSeenAt: s.lastSeenAt,
      current: s.idHash === current,
    }));
  }

  /** Signs out every browser of the account but the one holding `currentToken`; how many. */
  async signOutOthers(account: Account, currentToken: string, client: Client): Promise<number> {
    const n = await this.deps.sessions.deleteOthers(account.id, sha256Hex(currentToken));
    if (n > 0) await this.note(account, 'others_signed_out', client);
    return n;
  }

  /** The account's sign-in history, newest first (decision 0091). */
  history(account: Account, limit: number): Promise<SignInEvent[]> {
    return this.deps.history.recent(account.id, limit);
  }

  /**
   * What was tried against the account between the person's previous sign-in and the one that opened this session
   * (the browser holding `token`): shown once where the person lands (decision 0091).
   */
  async attemptsBeforeSignIn(account: Account, token: string): Promise<AttemptsBefore | undefined> {
    const session = await this.deps.sessions.findLive(sha256Hex(token), this.deps.clock.now());
    if (session?.accountId !== account.id) return undefined;
    return attemptsBefore(await this.deps.history.recent(account.id, ATTEMPTS_READ), session.createdAt);
  }

  private note(account: Account, kind: SignInEventKind, client: Client): Promise<void> {
    return this.deps.history.record(eventOf(account.id, kind, this.deps.clock.now(), client));
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash(DUMMY_HASH_PASSWORD);
    return this.dummyHash;
  }
}
