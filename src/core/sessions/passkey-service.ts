import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { hmacSha256, newSecret, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';
import type { Account, AccountId } from '../accounts/account.ts';
import type { CeremonyOptions, Passkey, PasskeyStore, RelyingParty, WebAuthnCeremonies } from './passkeys.ts';
import { eventOf, type Client, type SignInHistory } from './sign-in-history.ts';

export interface PasskeyServiceDeps {
  readonly passkeys: PasskeyStore;
  readonly ceremonies: WebAuthnCeremonies;
  readonly clock: Clock;
  readonly history: SignInHistory;
  /** Signs challenges, so a challenge names its purpose, account and end without a table. */
  readonly key: Uint8Array;
  /** Undefined when BASE_URL's host is an IP address: browsers make no passkey for one. */
  readonly rp: RelyingParty | undefined;
}

export type PasskeyError =
  | { readonly code: 'unavailable' }
  /** The page asked too long ago; a fresh one asks again. */
  | { readonly code: 'expired' }
  /** Not a passkey of any account here (removed, or made for another service). */
  | { readonly code: 'unknown_passkey' }
  /** Not a valid, user-verified answer to this page's challenge, or one used before. */
  | { readonly code: 'refused' }
  | { readonly code: 'already_added' }
  | { readonly code: 'too_many' };

/** What adding a passkey can come to: never a passkey unknown (it is being made). */
export type AddingError = Exclude<PasskeyError, { code: 'unknown_passkey' }>;
/** What a sign-in by passkey can come to: nothing is added, so never a duplicate or one too many. */
export type SignInPasskeyError = Exclude<PasskeyError, { code: 'already_added' | 'too_many' }>;

/** How long a page may wait for the person to use a passkey. */
const SIGN_IN_MS = 10 * 60_000;
const ADDING_MS = 5 * 60_000;
/** Passkeys an account may hold: more than any person's devices and managers, few enough to list on one page. */
export const PASSKEYS_MAX = 20;
/** A name the person gives a passkey, at most. */
export const PASSKEY_NAME_MAX = 60;

type Purpose = 'sign-in' | 'add';

/**
 * The relying party a service at `baseUrl` is: its host names it and its origin is checked. Undefined for a host that
 * is an IP address, for which browsers make no passkey (WebAuthn's RP ID is a domain).
 */
export function relyingParty(baseUrl: string): RelyingParty | undefined {
  const url = new URL(baseUrl);
  const host = url.hostname;
  if (host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return undefined;
  return { id: host, name: 'Inbox Triage', origin: url.origin };
}

/**
 * Passkeys for the console (decision 0092): added by a signed-in person who gives their password again, then a sign-in
 * by the passkey alone — it is something the person has and, verified by the authenticator, something they know or
 * are. Challenges are stateless (signed, with their end) and spent once in the store after a valid answer, so a page
 * shown to anyone writes nothing and an answer replayed on another node is refused.
 */
export class PasskeyService {
  private readonly deps: PasskeyServiceDeps;
  constructor(deps: PasskeyServiceDeps) {
    this.deps = deps;
  }

  get available(): boolean {
    return this.deps.rp !== undefined;
  }

  list(account: Account): Promise<Passkey[]> {
    return this.deps.passkeys.list(account.id);
  }

  /** What the browser needs to make a passkey for this account, unless passkeys are unavailable or it has enough. */
  async addingOptions(
    account: Account,
  ): Promise<Result<CeremonyOptions, Extract<PasskeyError, { code: 'unavailable' | 'too_many' }>>> {
    const { rp } = this.deps;
    if (rp === undefined) return err({ code: 'unavailable' });
    const exclude = await this.deps.passkeys.list(account.id);
    if (exclude.length >= PASSKEYS_MAX) return err({ code: 'too_many' });
    return ok(
      await this.deps.ceremonies.registrationOptions({
        rp,
        userId: account.id,
        userName: account.email,
        challenge: this.challenge('add', account.id, ADDING_MS),
        exclude,
      }),
    );
  }

  /**
   * Keeps the passkey the browser made, when its answer is valid for this account's challenge, under the name the
   * person gave it — or, when that is empty or not a name, the browser it was made in.
   */
  async finishAdding(
    account: Account,
    response: unknown,
    name: string,
    client: Client,
  ): Promise<Result<Passkey, AddingError>> {
    const { rp, ceremonies, passkeys, clock } = this.deps;
    if (rp === undefined) return err({ code: 'unavailable' });
    const check = this.checker('add', account.id);
    const made = await ceremonies.verifyRegistration(response, { rp, challenge: check.test });
    if (made === undefined) return err(check.expired() ? { code: 'expired' } : { code: 'refused' });
    if (!(await this.spend(check.seen()))) return err({ code: 'refused' });
    if ((await passkeys.list(account.id)).length >= PASSKEYS_MAX) return err({ code: 'too_many' });
    const passkey: Passkey = {
      ...made,
      accountId: account.id,
      name: nameOf(name) || (client.userAgent === null ? 'Passkey' : browserName(client.userAgent)),
      createdAt: clock.now(),
      lastUsedAt: null,
    };
    if (!(await passkeys.add(passkey))) return err({ code: 'already_added' });
    await this.deps.history.record(eventOf(account.id, 'passkey_added', clock.now(), client));
    return ok(passkey);
  }

  /** What the browser needs to sign in with any passkey it holds for this service; undefined when unavailable. */
  async signInOptions(): Promise<CeremonyOptions | undefined> {
    const { rp } = this.deps;
    if (rp === undefined) return undefined;
    return this.deps.ceremonies.authenticationOptions({
      rp,
      challenge: this.challenge('sign-in', '', SIGN_IN_MS),
    });
  }

  /** The account whose passkey answered this service's challenge, validly and for the first time. */
  async verifySignIn(response: unknown): Promise<Result<AccountId, SignInPasskeyError>> {
    const { rp, ceremonies, passkeys, clock } = this.deps;
    if (rp === undefined) return err({ code: 'unavailable' });
    const id = ceremonies.credentialIdOf(response);
    const passkey = id === undefined ? undefined : await passkeys.get(id);
    if (passkey === undefined) return err({ code: 'unknown_passkey' });
    const check = this.checker('sign-in', '');
    const used = await ceremonies.verifyAuthentication(response, passkey, { rp, challenge: check.test });
    if (used === undefined) return err(check.expired() ? { code: 'expired' } : { code: 'refused' });
    if (!(await this.spend(check.seen()))) return err({ code: 'refused' });
    if (!(await passkeys.recordUse(passkey.credentialId, used.counter, clock.now())))
      return err({ code: 'refused' });
    return ok(passkey.accountId);
  }

  /** Removes one of the account's passkeys (the caller has checked the person's password). */
  async remove(account: Account, credentialId: string, client: Client): Promise<boolean> {
    if (!(await this.deps.passkeys.remove(account.id, credentialId))) return false;
    await this.deps.history.record(eventOf(account.id, 'passkey_removed', this.deps.clock.now(), client));
    return true;
  }

  /** A challenge as the browser signs it: `<end ms>.<nonce>.<HMAC of purpose, account, end and nonce>`, base64url. */
  private challenge(purpose: Purpose, accountId: string, ttlMs: number): string {
    const end = String(this.deps.clock.now().getTime() + ttlMs);
    const nonce = newSecret('', 22);
    const mac = hmacSha256(this.deps.key, `passkey:${purpose}:${accountId}:${end}:${nonce}`);
    return Buffer.from(`${end}.${nonce}.${mac}`, 'utf8').toString('base64url');
  }

  /** A test of a signed challenge for this purpose and account; remembers the one it passed, and whether one ended. */
  private checker(purpose: Purpose, accountId: string) {
    let passed: string | undefined;
    let ended = false;
    const test = (challenge: string): boolean => {
      if (challenge.length > 300) return false;
      const [end, nonce, mac, extra] = Buffer.from(challenge, 'base64url').toString('utf8').split('.');
      if (end === undefined || nonce === undefined || mac === undefined || extra !== undefined) return false;
      if (!/^\d{1,16}$/.test(end)) return false;
      const expected = hmacSha256(this.deps.key, `passkey:${purpose}:${accountId}:${end}:${nonce}`);
      if (!timingSafeEqualStrings(mac, expected)) return false;
      if (Number(end) <= this.deps.clock.now().getTime()) {
        ended = true;
        return false;
      }
      passed = challenge;
      return true;
    };
    return { test, seen: () => passed ?? '', expired: () => ended };
  }

  private spend(challenge: string): Promise<boolean> {
    const [end] = Buffer.from(challenge, 'base64url').toString('utf8').split('.');
    return this.deps.passkeys.spendChallenge(sha256Hex(`passkey:${challenge}`), new Date(Number(end)));
  }
}

/** A name the person typed: one line, printable, at most PASSKEY_NAME_MAX characters; '' when it is not one. */
function nameOf(raw: string): string {
  const name = raw.trim();
  return name.length <= PASSKEY_NAME_MAX && !/[\p{Cc}\p{Cf}]/u.test(name) ? name : '';
}

/** "Chrome on Linux", from what a browser says it is: a name for a passkey the person did not name. */
export function browserName(userAgent: string): string {
  const browser =
    [
      [/Edg\//, 'Edge'],
      [/Firefox\//, 'Firefox'],
      [/Chrom(e|ium)\//, 'Chrome'],
      [/Safari\//, 'Safari'],
    ].find(([re]) => (re as RegExp).test(userAgent))?.[1] ?? 'A browser';
  const system = [
    [/iPhone|iPad/, 'iOS'],
    [/Android/, 'Android'],
    [/Mac OS X/, 'macOS'],
    [/Windows/, 'Windows'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ].find(([re]) => (re as RegExp).test(userAgent))?.[1];
  return system === undefined ? String(browser) : `${String(browser)} on ${String(system)}`;
}
