import { hmacSha256, newSecret, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';
import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { Account } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { normaliseEmail, type PasswordHasher } from '../accounts/password-hasher.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import type { SessionStore } from './session-store.ts';

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
}

export type SignInError =
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'rate_limited'; readonly retryAfterSeconds: number };

/** Lockouts grow (decision 0025): the n-th within a day holds for the rule's window × 2^(n−1), at most a day. */
const DAY_SECONDS = 24 * 3600;
const HOLD_LEVELS = 8;
const lockoutsOf = (rule: RateRule): RateRule => ({
  name: `${rule.name}-lockouts`,
  points: 1_000_000,
  windowSeconds: DAY_SECONDS,
});
const holdOf = (rule: RateRule, level: number): RateRule => ({
  name: `${rule.name}-hold${String(level)}`,
  points: 1,
  windowSeconds: Math.min(rule.windowSeconds * 2 ** (level - 1), DAY_SECONDS),
});

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
    client: { ip: string; userAgent: string | null; device?: string | undefined },
  ): Promise<Result<{ token: string; account: Account; device: string }, SignInError>> {
    const { accounts, hasher, limiter, policy } = this.deps;
    const email = normaliseEmail(rawEmail) ?? rawEmail.trim().toLowerCase();
    const account = await accounts.findByEmail(email);
    const device = account === undefined ? undefined : this.knownDevice(account, client.device);
    const rules: [RateRule, string][] =
      device === undefined
        ? [
            [policy.failuresPerAccount, email],
            [policy.failuresPerIp, client.ip],
          ]
        : [[policy.failuresPerDevice, device]];
    const wait = await this.heldFor(rules);
    if (wait > 0) return err({ code: 'rate_limited', retryAfterSeconds: wait });
    const hash = account === undefined ? undefined : await accounts.getPasswordHash(account.id);
    let valid = false;
    if (hash === undefined || hash === null) await hasher.verify(await this.dummy(), password);
    else valid = await hasher.verify(hash, password);
    if (account === undefined || !valid) {
      for (const [rule, key] of rules) await this.fail(rule, key);
      return err({ code: 'invalid_credentials' });
    }
    if (device === undefined) await limiter.reset(policy.failuresPerAccount, email);
    else await limiter.reset(policy.failuresPerDevice, device);
    return ok({
      token: await this.start(account, client.userAgent),
      account,
      device: device !== undefined && client.device !== undefined ? client.device : this.newDevice(account),
    });
  }

  /** Seconds until every budget and hold of these keys allows a try again; 0 when they do now. */
  private async heldFor(rules: readonly (readonly [RateRule, string])[]): Promise<number> {
    const { limiter } = this.deps;
    let wait = 0;
    for (const [rule, key] of rules) {
      const base = await limiter.peek(rule, key);
      if (!base.allowed) wait = Math.max(wait, base.retryAfterSeconds);
      // Only the hold of the key's latest lockout can still be running: each one outlasts the one before.
      const counted = await limiter.peek(lockoutsOf(rule), key);
      const lockouts = counted.allowed ? lockoutsOf(rule).points - counted.remaining : HOLD_LEVELS;
      if (lockouts < 2) continue;
      const hold = await limiter.peek(holdOf(rule, Math.min(lockouts, HOLD_LEVELS)), key);
      if (!hold.allowed) wait = Math.max(wait, hold.retryAfterSeconds);
    }
    return wait;
  }

  /**
   * Spends one failure; the one that spends the last of a budget is a lockout, and a key's second lockout within a
   * day holds it twice as long as the window, its third four times, and so on up to a day.
   */
  private async fail(rule: RateRule, key: string): Promise<void> {
    const { limiter } = this.deps;
    const d = await limiter.consume(rule, key);
    if (d.allowed && d.remaining > 0) return;
    const counted = await limiter.consume(lockoutsOf(rule), key);
    const lockouts = counted.allowed ? lockoutsOf(rule).points - counted.remaining : HOLD_LEVELS;
    if (lockouts >= 2) await limiter.consume(holdOf(rule, Math.min(lockouts, HOLD_LEVELS)), key);
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

  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash(DUMMY_HASH_PASSWORD);
    return this.dummyHash;
  }
}
