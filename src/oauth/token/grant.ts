import type { AccountId } from '../../core/accounts/account.ts';
import type { Powers } from '../../core/auth/agent-powers.ts';
import type { Allowed } from '../../core/auth/allowed.ts';
import type { InboxReach } from '../../core/auth/inbox-reach.ts';

/** One sign-in of one client for one account: the tokens it produced live and die together. */
export interface Grant {
  readonly id: string;
  readonly accountId: AccountId;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly resource: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  /** What the person lets the agent do beyond reading, chosen at consent or since (decision 0141). */
  readonly powers: Powers;
  /** Which inboxes it may reach (decision 0142). */
  readonly inboxes: InboxReach;
}

export interface AuthorizationCode {
  readonly codeHash: string;
  readonly clientId: string;
  readonly accountId: AccountId;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: readonly string[];
  readonly resource: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** What the person allowed on the consent page, for the grant the code makes. */
  readonly powers: Powers;
  readonly inboxes: InboxReach;
}

export interface TokenRecord {
  readonly hash: string;
  readonly kind: 'access' | 'refresh';
  readonly grantId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** An access token's first use, when known (`findLiveToken`). */
  readonly usedAt?: Date | null;
}

export type CodeRedemption =
  | { readonly status: 'ok'; readonly code: AuthorizationCode }
  /** Already redeemed: the grant it produced, so a replay can revoke it (OAuth 2.1 §4.1.3). */
  | { readonly status: 'replayed'; readonly grantId: string | null }
  | { readonly status: 'invalid' };

export type RefreshRotation =
  | { readonly status: 'rotated'; readonly grant: Grant }
  /** A refresh token that was already rotated away came back: someone holds a stolen copy. */
  | { readonly status: 'reused'; readonly grantId: string }
  | { readonly status: 'invalid' };

/**
 * Codes, grants and tokens, stored as SHA-256 hashes. Atomicity is part of the contract: a code is redeemed by
 * exactly one caller; a refresh token is rotated by exactly one caller, and every later presentation reports reuse
 * (whether that reuse may be answered again is `replayableRotation`'s question).
 */
export interface GrantStore {
  saveCode(code: AuthorizationCode): Promise<void>;
  redeemCode(codeHash: string, now: Date): Promise<CodeRedemption>;
  /**
   * Creates the grant with its first tokens and remembers which code produced it — unless the code was replayed
   * since it was redeemed, in which case nothing is created and the answer is false.
   */
  createGrant(grant: Grant, tokens: readonly TokenRecord[], fromCodeHash: string): Promise<boolean>;
  /** Revokes `oldRefreshHash` and adds `next` in one step, if the old token is live and its grant is not revoked. */
  rotateRefresh(oldRefreshHash: string, next: readonly TokenRecord[], now: Date): Promise<RefreshRotation>;
  /**
   * A refresh token rotated away whose rotation's answer may be given again (decision 0041): it was rotated into
   * `successor` (both of its tokens still live, so its refresh token not rotated on) of a live grant, at most
   * `window.withinMs` ago, and either this presentation was received no later than that rotation (`receivedAt`: sent
   * before anyone could have had its answer) or that pair was never used. The grant, and when the pair's access
   * token expires.
   */
  replayableRotation(
    oldRefreshHash: string,
    successor: { readonly accessHash: string; readonly refreshHash: string },
    now: Date,
    window: { readonly receivedAt: Date; readonly withinMs: number },
  ): Promise<{ grant: Grant; accessExpiresAt: Date } | undefined>;
  /** A live (unexpired, unrevoked) token of a live grant. */
  findLiveToken(
    hash: string,
    kind: TokenRecord['kind'],
    now: Date,
  ): Promise<{ token: TokenRecord; grant: Grant } | undefined>;
  touchGrant(grantId: string, now: Date): Promise<void>;
  /** Records an access token's first use (later calls change nothing). */
  markUsed(hash: string, now: Date): Promise<void>;
  revokeToken(hash: string, now: Date): Promise<{ kind: TokenRecord['kind']; grantId: string } | undefined>;
  revokeGrant(grantId: string, now: Date): Promise<void>;
  /** Live grants of an account, newest first. */
  listGrants(accountId: AccountId): Promise<Grant[]>;
  revokeClientGrants(accountId: AccountId, clientId: string, now: Date): Promise<number>;
  /** Sets what every live sign-in of one client on the account may do, and where; how many were changed. */
  setClientAllowed(accountId: AccountId, clientId: string, allowed: Allowed): Promise<number>;
  revokeAllGrants(accountId: AccountId, now: Date): Promise<number>;
  /**
   * The housekeeping sweep (decision 0065): removes the codes and tokens that expired before `before`, the sign-ins
   * revoked before it, and the sign-ins made before it that have no token left. How many of each.
   */
  deleteSpent(before: Date): Promise<SpentRemoved>;
}

export interface SpentRemoved {
  readonly codes: number;
  readonly tokens: number;
  readonly grants: number;
}
