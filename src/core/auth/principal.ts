import type { Account, AccountId } from '../accounts/account.ts';
import type { Needs, Powers } from './agent-powers.ts';
import type { InboxReach, Reach } from './inbox-reach.ts';

/**
 * Who is calling an agent-facing route: the account, the credential that proved it, and for OAuth the client.
 * Tools receive this and never trust an account or inbox id from their arguments without checking it here.
 */
export interface Principal extends Reach {
  readonly accountId: AccountId;
  readonly credential:
    | { readonly kind: 'api_key'; readonly id: string }
    | { readonly kind: 'access_token'; readonly id: string; readonly clientId: string }
    /** The person in the console (Settings → Activity's Undo): bound by the same lease rules as agents. */
    | { readonly kind: 'session'; readonly id: string };
  readonly scopes: readonly string[];
  /** What the person lets this credential do beyond reading (decision 0141); `null` for everything. */
  readonly powers: Powers;
  /** Which of the account's inboxes it may reach (decision 0142); `null` for every one. */
  readonly inboxes: InboxReach;
  /** When the credential stops working (access tokens); null for API keys. */
  readonly expiresAt: Date | null;
}

export function credentialKey(p: Principal): string {
  return credentialKeyOf(p.credential);
}

/** The key a credential's budgets are counted under, from its kind and id alone. */
export function credentialKeyOf(credential: { readonly kind: string; readonly id: string }): string {
  return `${credential.kind}:${credential.id}`;
}

/** The credential a key names (`credentialKeyOf`'s inverse); undefined for a string that is not one. */
export function credentialOfKey(key: string): { readonly kind: string; readonly id: string } | undefined {
  const colon = key.indexOf(':');
  return colon <= 0 ? undefined : { kind: key.slice(0, colon), id: key.slice(colon + 1) };
}

/**
 * Whether a credential still works for its account now: not revoked or disconnected, and the account's agents still
 * allowed (no trial ended, no payment failed) — and, given `needs`, still holds that power (decision 0141); given
 * `inboxId`, still reaches that inbox (0142). What a download link (decision 0120) and a lease (decision 0130) are
 * worth once their credential is gone.
 */
export type CredentialStillWorks = (
  accountId: AccountId,
  credential: { readonly kind: string; readonly id: string },
  needs?: Needs,
  inboxId?: string,
) => Promise<boolean>;

export interface Verified {
  readonly principal: Principal;
  /** Read together with the credential, so plan checks need no second lookup. */
  readonly account: Account;
}

/** Turns a bearer string into a principal and its account, or undefined when it is not a live credential. */
export interface BearerVerifier {
  verify(token: string): Promise<Verified | undefined>;
}
