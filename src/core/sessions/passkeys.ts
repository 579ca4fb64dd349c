import type { AccountId } from '../accounts/account.ts';

/** A passkey the person added to their account (decision 0092): a WebAuthn credential the service verifies with. */
export interface Passkey {
  /** The credential's id, base64url, as the authenticator names it. */
  readonly credentialId: string;
  readonly accountId: AccountId;
  /** The credential's public key, COSE-encoded. Not a secret. */
  readonly publicKey: Uint8Array;
  /** The authenticator's signature counter at its last use (0 for one that keeps none, as synced passkeys do). */
  readonly counter: number;
  /** How the browser reached the authenticator (internal, hybrid, usb …), handed back when asking for it. */
  readonly transports: readonly string[];
  /** What the person knows it by: the browser it was made in, as that browser described itself. */
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export interface PasskeyStore {
  /** False when a passkey with this credential id exists (on any account). */
  add(passkey: Passkey): Promise<boolean>;
  get(credentialId: string): Promise<Passkey | undefined>;
  /** An account's passkeys, the newest first. */
  list(accountId: AccountId): Promise<Passkey[]>;
  /**
   * Records a use with the counter the authenticator signed: taken when it is later than the stored one, or both are
   * 0 (an authenticator without a counter); false otherwise — a cloned authenticator, or the same use twice.
   */
  recordUse(credentialId: string, counter: number, at: Date): Promise<boolean>;
  /** False when the account has no such passkey. */
  remove(accountId: AccountId, credentialId: string): Promise<boolean>;
  /** Spends a ceremony's challenge (its hash) once, on every node: false when it was spent before. */
  spendChallenge(hash: string, expiresAt: Date): Promise<boolean>;
  /** Forgets spent challenges that expired before `now` (they can no longer be presented); how many. */
  deleteSpentChallenges(now: Date): Promise<number>;
}

/** Where the browser is told to make or use a passkey: the relying party, named by the host of BASE_URL. */
export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

/** What the browser's `navigator.credentials` takes: options as JSON (binary fields base64url). */
export type CeremonyOptions = Record<string, unknown>;

/** The cryptography of the two WebAuthn ceremonies (an adapter over a WebAuthn library). */
export interface WebAuthnCeremonies {
  registrationOptions(input: {
    readonly rp: RelyingParty;
    readonly userId: string;
    readonly userName: string;
    readonly challenge: string;
    readonly exclude: readonly Pick<Passkey, 'credentialId' | 'transports'>[];
  }): Promise<CeremonyOptions>;
  /** The new credential when the response is a valid, user-verified registration for this challenge; else undefined. */
  verifyRegistration(
    response: unknown,
    expect: { readonly rp: RelyingParty; readonly challenge: (challenge: string) => boolean },
  ): Promise<Pick<Passkey, 'credentialId' | 'publicKey' | 'counter' | 'transports'> | undefined>;
  authenticationOptions(input: {
    readonly rp: RelyingParty;
    readonly challenge: string;
  }): Promise<CeremonyOptions>;
  /** The credential id a sign-in response names (unverified: only to look the passkey up). */
  credentialIdOf(response: unknown): string | undefined;
  /** The signed counter when the response is a valid, user-verified assertion by this passkey; else undefined. */
  verifyAuthentication(
    response: unknown,
    passkey: Passkey,
    expect: { readonly rp: RelyingParty; readonly challenge: (challenge: string) => boolean },
  ): Promise<{ readonly counter: number } | undefined>;
}
