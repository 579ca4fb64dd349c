import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { Account } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { normaliseEmail, type PasswordHasher } from '../accounts/password-hasher.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import type { SessionStore } from './session-store.ts';

export interface SessionPolicy {
  readonly ttlMs: number;
  /** Failed sign-ins allowed per account and per client address in the window. */
  readonly failuresPerAccount: RateRule;
  readonly failuresPerIp: RateRule;
}

export interface SessionServiceDeps {
  readonly accounts: AccountStore;
  readonly sessions: SessionStore;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly policy: SessionPolicy;
}

export type SignInError =
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'rate_limited'; readonly retryAfterSeconds: number };

// Verifying against a real hash when the account does not exist keeps the timing of both failures alike.
const DUMMY_HASH_PASSWORD = 'not-a-real-password-for-timing';

export class SessionService {
  private dummyHash: Promise<string> | undefined;

  private readonly deps: SessionServiceDeps;
  constructor(deps: SessionServiceDeps) {
    this.deps = deps;
  }

  async signIn(
    rawEmail: string,
    password: string,
    client: { ip: string; userAgent: string | null },
  ): Promise<Result<{ token: string; account: Account }, SignInError>> {
    const { accounts, hasher, limiter, policy } = this.deps;
    const email = normaliseEmail(rawEmail) ?? rawEmail.trim().toLowerCase();
    for (const [rule, key] of [
      [policy.failuresPerAccount, email],
      [policy.failuresPerIp, client.ip],
    ] as const) {
      const d = await limiter.peek(rule, key);
      if (!d.allowed) return err({ code: 'rate_limited', retryAfterSeconds: d.retryAfterSeconds });
    }
    const account = await accounts.findByEmail(email);
    const hash = account === undefined ? undefined : await accounts.getPasswordHash(account.id);
    let valid = false;
    if (hash === undefined || hash === null) await hasher.verify(await this.dummy(), password);
    else valid = await hasher.verify(hash, password);
    if (account === undefined || !valid) {
      await limiter.consume(policy.failuresPerAccount, email);
      await limiter.consume(policy.failuresPerIp, client.ip);
      return err({ code: 'invalid_credentials' });
    }
    await limiter.reset(policy.failuresPerAccount, email);
    return ok({ token: await this.start(account, client.userAgent), account });
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
