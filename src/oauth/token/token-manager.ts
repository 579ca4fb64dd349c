import type { Account } from '../../core/accounts/account.ts';
import type { AccountStore } from '../../core/accounts/account-store.ts';
import { agentAccess } from '../../core/accounts/plan.ts';
import type { BearerVerifier, Verified } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { newSecret, pkceChallenge, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';
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
 * How long a refresh token rotated away may be presented again while its successor is unused (decision 0028): long
 * enough for a client to retry after a dropped answer or a restarted service, short like the grace periods of
 * hosted authorization servers (Okta allows 0–60 s).
 */
export const REISSUE_GRACE_MS = 60_000;

/**
 * The token endpoint's grants (OAuth 2.1 §4.1.3, §4.3), revocation (RFC 7009) and access-token verification for
 * `/mcp`. Access tokens live 1 hour, refresh tokens 30 days; every refresh rotates, and a rotated-away refresh
 * token presented again revokes the whole sign-in — unless that rotation's answer was lost (`REISSUE_GRACE_MS`).
 */
export class TokenManager implements BearerVerifier {
  private readonly deps: { grants: GrantStore; accounts: AccountStore; clock: Clock; config: OAuthConfig };
  constructor(deps: { grants: GrantStore; accounts: AccountStore; clock: Clock; config: OAuthConfig }) {
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
    };
    const { records, response } = this.mint(grant, now);
    if (!(await this.deps.grants.createGrant(grant, records, sha256Hex(p.code))))
      throw new InvalidGrantError('This authorization code was used twice; no tokens were issued for it.');
    return response;
  }

  async refresh(
    client: OAuthClient,
    p: { refreshToken?: string; resource?: string; scope?: string },
  ): Promise<TokenResponse> {
    if (p.refreshToken === undefined || p.refreshToken === '')
      throw new InvalidRequestError('refresh_token is required.');
    const now = this.deps.clock.now();
    const hash = sha256Hex(p.refreshToken);
    // A token rotated away moments ago whose successor was never used: the answer to that rotation was lost (the
    // connection dropped, the process died after its commit). Rotated again instead of taken for theft (decision 0028).
    const found = await this.deps.grants.findLiveToken(hash, 'refresh', now);
    const unanswered =
      found === undefined ? await this.deps.grants.rotatedUnanswered(hash, now, REISSUE_GRACE_MS) : undefined;
    const live = found ?? unanswered;
    if (live === undefined) {
      // Not live: either never issued, expired, or already rotated away. Only the last is reuse.
      const outcome = await this.deps.grants.rotateRefresh(hash, [], now);
      if (outcome.status === 'reused') await this.reuseDetected(outcome.grantId, now);
      throw new InvalidGrantError('The refresh token is invalid, expired or revoked.');
    }
    const { grant } = live;
    if (grant.clientId !== client.clientId)
      throw new InvalidGrantError('The refresh token was issued to another client.');
    if (p.resource !== undefined && p.resource !== '' && !sameResource(p.resource, grant.resource)) {
      throw new InvalidTargetError(`This sign-in is for ${grant.resource}.`);
    }
    const asked = (p.scope ?? '').split(' ').filter((s) => s !== '');
    if (!asked.every((s) => grant.scope.includes(s)))
      throw new InvalidScopeError('A refresh cannot widen the scope.');
    await this.allowedAccount(grant.accountId);
    const { records, response } = this.mint(grant, now);
    const rotated =
      unanswered !== undefined
        ? await this.deps.grants.reissue(hash, records, now, REISSUE_GRACE_MS)
        : await this.deps.grants.rotateRefresh(hash, records, now);
    if (rotated.status === 'reused') await this.reuseDetected(rotated.grantId, now); // lost a race with a thief
    if (rotated.status !== 'rotated')
      throw new InvalidGrantError('The refresh token is invalid, expired or revoked.');
    return response;
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

  private mint(grant: Grant, now: Date): { records: TokenRecord[]; response: TokenResponse } {
    const { accessTokenTtlMs, refreshTokenTtlMs } = this.deps.config;
    const access = newSecret(ACCESS_TOKEN_PREFIX, 43);
    const refresh = newSecret(REFRESH_TOKEN_PREFIX, 43);
    return {
      records: [
        {
          hash: sha256Hex(access),
          kind: 'access',
          grantId: grant.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + accessTokenTtlMs),
        },
        {
          hash: sha256Hex(refresh),
          kind: 'refresh',
          grantId: grant.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + refreshTokenTtlMs),
        },
      ],
      response: {
        access_token: access,
        token_type: 'Bearer',
        expires_in: Math.floor(accessTokenTtlMs / 1000),
        refresh_token: refresh,
        scope: grant.scope.join(' '),
      },
    };
  }
}
