import type { Account } from '../../core/accounts/account.ts';
import type { AccountStore } from '../../core/accounts/account-store.ts';
import { agentAccess } from '../../core/accounts/plan.ts';
import type { BearerVerifier, Verified } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  derivedSecret,
  newSecret,
  pkceChallenge,
  sha256Hex,
  timingSafeEqualStrings,
} from '../../lib/secret-token.ts';
import type { OAuthClient } from '../client/client.ts';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX, type OAuthConfig } from '../oauth-config.ts';
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  PaymentRequiredError,
} from '../oauth-error.ts';
import { PKCE_VALUE, sameResource } from '../request/authorization-manager.ts';
import type { Grant, GrantStore, TokenRecord } from './grant.ts';

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
}

/**
 * How long after its rotation a refresh token rotated away may still get that rotation's answer (decision 0041), in
 * two cases:
 * - it was received no later than the rotation: a duplicate sent before anyone could have had the answer. The MCP
 *   SDKs refresh once per request that got a 401 and drop their stored tokens on any `invalid_grant`, so an agent
 *   with several calls in flight when its access token expired sends several refreshes of one token;
 * - the pair was never used: the answer was lost (decision 0028). Hosted authorization servers allow the same
 *   (Okta's grace period for rotation, 0–60 s).
 * Presented after its rotation once that pair was used, it is a copy in the wrong hands (RFC 9700 §4.14.2).
 */
export const REPLAY_WITHIN_MS = 60_000;

/**
 * The token endpoint's grants (OAuth 2.1 §4.1.3, §4.3), revocation (RFC 7009) and access-token verification for
 * `/mcp`. Access tokens live 1 hour, refresh tokens 30 days; every refresh rotates, and a rotated-away refresh
 * token presented again revokes the whole sign-in, unless `REPLAY_WITHIN_MS` lets it have its rotation's answer again.
 * A rotation's pair is derived from the refresh token it replaces under `rotationKey`, so that answer can be
 * computed again by any node without a copy of it being kept.
 */
export class TokenManager implements BearerVerifier {
  private readonly deps: {
    grants: GrantStore;
    accounts: AccountStore;
    clock: Clock;
    config: OAuthConfig;
    rotationKey: Uint8Array;
  };
  constructor(deps: {
    grants: GrantStore;
    accounts: AccountStore;
    clock: Clock;
    config: OAuthConfig;
    /** A key of its own, the same on every node and across restarts. */
    rotationKey: Uint8Array;
  }) {
    this.deps = deps;
  }

  async exchangeCode(
    client: OAuthClient,
    p: { code?: string; codeVerifier?: string; redirectUri?: string; resource?: string },
  ): Promise<TokenResponse> {
    if (p.code === undefined || p.code === '') throw new InvalidRequestError('code is required.');
    if (p.codeVerifier === undefined || !PKCE_VALUE.test(p.codeVerifier))
      throw new InvalidRequestError('A valid code_verifier is required (PKCE).');
    if (p.redirectUri === undefined) throw new InvalidRequestError('redirect_uri is required.');
    if (p.resource === undefined || p.resource === '')
      throw new InvalidTargetError(`resource is required: ${this.deps.config.resource}`);
    const now = this.deps.clock.now();
    const redeemed = await this.deps.grants.redeemCode(sha256Hex(p.code), now);
    if (redeemed.status === 'replayed') {
      // OAuth 2.1 §4.1.3: a code used twice means it leaked; revoke what it produced.
      if (redeemed.grantId !== null) await this.deps.grants.revokeGrant(redeemed.grantId, now);
      throw new InvalidGrantError(
        'This authorization code was already used; the tokens it produced are revoked.',
      );
    }
    if (redeemed.status === 'invalid')
      throw new InvalidGrantError('The authorization code is invalid or expired.');
    const { code } = redeemed;
    if (code.clientId !== client.clientId)
      throw new InvalidGrantError('The code was issued to another client.');
    if (code.redirectUri !== p.redirectUri)
      throw new InvalidGrantError('redirect_uri does not match the authorization request.');
    if (!sameResource(p.resource, code.resource))
      throw new InvalidTargetError(`This code is for ${code.resource}.`);
    if (!timingSafeEqualStrings(pkceChallenge(p.codeVerifier), code.codeChallenge))
      throw new InvalidGrantError('code_verifier does not match code_challenge.');
    const account = await this.allowedAccount(code.accountId);
    const grant: Grant = {
      id: newSecret('grant_', 24),
      accountId: account.id,
      clientId: client.clientId,
      scope: code.scope,
      resource: code.resource,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      powers: code.powers,
      inboxes: code.inboxes,
    };
    const { records, response } = this.mint(grant, now);
    if (!(await this.deps.grants.createGrant(grant, records, sha256Hex(p.code))))
      throw new InvalidGrantError('This authorization code was used twice; no tokens were issued for it.');
    return response;
  }

  /** `receivedAt`: when the request arrived, before anything it waited for (default: now). */
  async refresh(
    client: OAuthClient,
    p: { refreshToken?: string; resource?: string; scope?: string },
    receivedAt: Date = this.deps.clock.now(),
  ): Promise<TokenResponse> {
    if (p.refreshToken === undefined || p.refreshToken === '')
      throw new InvalidRequestError('refresh_token is required.');
    const hash = sha256Hex(p.refreshToken);
    const next = this.successor(p.refreshToken);
    const found = await this.deps.grants.findLiveToken(hash, 'refresh', this.deps.clock.now());
    if (found !== undefined) {
      const grant = await this.refreshable(found.grant, client, p);
      // The rotation's time, as late as it can be read: a duplicate received before it is a concurrent one.
      const rotatedAt = this.deps.clock.now();
      const { records, response } = this.mint(grant, rotatedAt, next);
      const rotated = await this.deps.grants.rotateRefresh(hash, records, rotatedAt);
      if (rotated.status === 'rotated') return response;
      // 'reused': another presentation of the same token rotated it a moment ago; its answer may be ours too.
    }
    // Rotated away already: the same answer again if this is a duplicate or the answer was lost, else reuse.
    const now = this.deps.clock.now();
    const replay = await this.deps.grants.replayableRotation(
      hash,
      { accessHash: sha256Hex(next.access), refreshHash: sha256Hex(next.refresh) },
      now,
      { receivedAt, withinMs: REPLAY_WITHIN_MS },
    );
    if (replay !== undefined) {
      // Another client holding a rotated-away token is a copy in the wrong hands, duplicate or not.
      if (replay.grant.clientId !== client.clientId) await this.reuseDetected(replay.grant.id, now);
      const grant = await this.refreshable(replay.grant, client, p);
      return this.answer(grant, next, replay.accessExpiresAt.getTime() - now.getTime());
    }
    // Not live: never issued, expired, of a revoked sign-in, or rotated away. Only the last is reuse.
    const outcome = await this.deps.grants.rotateRefresh(hash, [], now);
    if (outcome.status === 'reused') await this.reuseDetected(outcome.grantId, now);
    throw new InvalidGrantError('The refresh token is invalid, expired or revoked.');
  }

  /** The checks a refresh makes of its sign-in: the same client, resource and scope, and an account allowed in. */
  private async refreshable(
    grant: Grant,
    client: OAuthClient,
    p: { resource?: string; scope?: string },
  ): Promise<Grant> {
    if (grant.clientId !== client.clientId)
      throw new InvalidGrantError('The refresh token was issued to another client.');
    if (p.resource !== undefined && p.resource !== '' && !sameResource(p.resource, grant.resource)) {
      throw new InvalidTargetError(`This sign-in is for ${grant.resource}.`);
    }
    const asked = (p.scope ?? '').split(' ').filter((s) => s !== '');
    if (!asked.every((s) => grant.scope.includes(s)))
      throw new InvalidScopeError('A refresh cannot widen the scope.');
    await this.allowedAccount(grant.accountId);
    return grant;
  }

  /** The pair a rotation of `refreshToken` issues: the same for every presentation of it, on every node. */
  private successor(refreshToken: string): Pair {
    const key = this.deps.rotationKey;
    return {
      access: derivedSecret(ACCESS_TOKEN_PREFIX, key, `access\0${refreshToken}`),
      refresh: derivedSecret(REFRESH_TOKEN_PREFIX, key, `refresh\0${refreshToken}`),
    };
  }

  private async reuseDetected(grantId: string, now: Date): Promise<never> {
    await this.deps.grants.revokeGrant(grantId, now);
    throw new InvalidGrantError(
      'This refresh token was already used; the sign-in is revoked. Sign in again.',
    );
  }

  /** RFC 7009: unknown or foreign tokens are ignored (the endpoint answers 200 regardless). */
  async revoke(client: OAuthClient, token: string): Promise<void> {
    const now = this.deps.clock.now();
    const hash = sha256Hex(token);
    const kind = token.startsWith(REFRESH_TOKEN_PREFIX)
      ? 'refresh'
      : token.startsWith(ACCESS_TOKEN_PREFIX)
        ? 'access'
        : undefined;
    if (kind === undefined) return;
    const live = await this.deps.grants.findLiveToken(hash, kind, now);
    if (live === undefined || live.grant.clientId !== client.clientId) return;
    // Revoking a refresh token ends the sign-in (and so its access tokens); an access token goes alone.
    if (kind === 'refresh') await this.deps.grants.revokeGrant(live.grant.id, now);
    else await this.deps.grants.revokeToken(hash, now);
  }

  /** `ita_` bearer tokens on /mcp: live, for this resource, of a live sign-in. */
  async verify(token: string): Promise<Verified | undefined> {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 100) return undefined;
    const now = this.deps.clock.now();
    const live = await this.deps.grants.findLiveToken(sha256Hex(token), 'access', now);
    if (live === undefined || !sameResource(live.grant.resource, this.deps.config.resource)) return undefined;
    const account = await this.deps.accounts.get(live.grant.accountId);
    if (account === undefined) return undefined;
    // Its first use tells a lost refresh answer from a replayed refresh token (decision 0028).
    if (live.token.usedAt === null) await this.deps.grants.markUsed(live.token.hash, now);
    if (live.grant.lastUsedAt === null || now.getTime() - live.grant.lastUsedAt.getTime() > 60_000) {
      await this.deps.grants.touchGrant(live.grant.id, now);
    }
    return {
      principal: {
        accountId: account.id,
        credential: { kind: 'access_token', id: live.grant.id, clientId: live.grant.clientId },
        scopes: live.grant.scope,
        powers: live.grant.powers,
        inboxes: live.grant.inboxes,
        expiresAt: live.token.expiresAt,
      },
      account,
    };
  }

  private async allowedAccount(accountId: Account['id']): Promise<Account> {
    const account = await this.deps.accounts.get(accountId);
    if (account === undefined) throw new InvalidGrantError('The account no longer exists.');
    const access = agentAccess(account, this.deps.clock.now());
    if (!access.allowed) throw new PaymentRequiredError(access.description);
    return account;
  }

  /** A sign-in's first pair is random; a rotation's is its `successor`. */
  private mint(
    grant: Grant,
    now: Date,
    pair: Pair = { access: newSecret(ACCESS_TOKEN_PREFIX, 43), refresh: newSecret(REFRESH_TOKEN_PREFIX, 43) },
  ): { records: TokenRecord[]; response: TokenResponse } {
    const { accessTokenTtlMs, refreshTokenTtlMs } = this.deps.config;
    return {
      records: [
        {
          hash: sha256Hex(pair.access),
          kind: 'access',
          grantId: grant.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + accessTokenTtlMs),
        },
        {
          hash: sha256Hex(pair.refresh),
          kind: 'refresh',
          grantId: grant.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + refreshTokenTtlMs),
        },
      ],
      response: this.answer(grant, pair, accessTokenTtlMs),
    };
  }

  private answer(grant: Grant, pair: Pair, accessLeftMs: number): TokenResponse {
    return {
      access_token: pair.access,
      token_type: 'Bearer',
      expires_in: Math.max(0, Math.floor(accessLeftMs / 1000)),
      refresh_token: pair.refresh,
      scope: grant.scope.join(' '),
    };
  }
}

interface Pair {
  readonly access: string;
  readonly refresh: string;
}
