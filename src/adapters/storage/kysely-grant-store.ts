import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type {
  AuthorizationCode,
  CodeRedemption,
  Grant,
  GrantStore,
  RefreshRotation,
  SpentRemoved,
  TokenRecord,
} from '../../oauth/token/grant.ts';
import { readPowers, storedPowers } from '../../core/auth/agent-powers.ts';
import type { Allowed } from '../../core/auth/allowed.ts';
import { readReach, storedReach } from '../../core/auth/inbox-reach.ts';
import type { Db } from './database.ts';
import type { OAuthGrantsTable } from './schema.ts';
import { hotQuery } from './hot-query.ts';
import { toDate, toDateOrNull } from './sql-errors.ts';

const toGrant = (r: Selectable<OAuthGrantsTable>): Grant => ({
  id: r.id,
  accountId: r.account_id as AccountId,
  clientId: r.client_id,
  scope: r.scope.split(' '),
  resource: r.resource,
  createdAt: toDate(r.created_at),
  lastUsedAt: toDateOrNull(r.last_used_at),
  revokedAt: toDateOrNull(r.revoked_at),
  powers: readPowers(r.powers),
  inboxes: readReach(r.inboxes),
});

const toTokenRow = (t: TokenRecord) => ({
  hash: t.hash,
  kind: t.kind,
  grant_id: t.grantId,
  created_at: t.createdAt.getTime(),
  expires_at: t.expiresAt.getTime(),
  revoked_at: null,
});

type LiveRow = Selectable<OAuthGrantsTable> & {
  t_hash: string;
  t_kind: string;
  t_created_at: number;
  t_expires_at: number;
  t_used_at: number | null;
};

// On SQLite verified credentials are believed for a few seconds (decision 0010); on PostgreSQL this runs on every
// request (decision 0024), so it is a hot statement: compiled once, and prepared once per connection there (0048).
const liveToken = (db: Db) =>
  hotQuery<LiveRow, { hash: string; kind: string; now: number }>(db, (p) =>
    db.kysely
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
      .selectAll('oauth_grants')
      .select([
        'oauth_tokens.hash as t_hash',
        'oauth_tokens.kind as t_kind',
        'oauth_tokens.created_at as t_created_at',
        'oauth_tokens.expires_at as t_expires_at',
        'oauth_tokens.used_at as t_used_at',
      ])
      .where('oauth_tokens.hash', 'in', [p('hash')])
      .where('oauth_tokens.kind', 'in', [p('kind')])
      .where('oauth_tokens.revoked_at', 'is', null)
      .where('oauth_tokens.expires_at', '>', p('now'))
      .where('oauth_grants.revoked_at', 'is', null)
      .$castTo<LiveRow>(),
  );

export class KyselyGrantStore implements GrantStore {
  private readonly db: Db['kysely'];
  private readonly live: ReturnType<typeof liveToken>;
  constructor(db: Db) {
    this.db = db.kysely;
    this.live = liveToken(db);
  }

  async saveCode(c: AuthorizationCode): Promise<void> {
    await this.db
      .insertInto('oauth_codes')
      .values({
        code_hash: c.codeHash,
        client_id: c.clientId,
        account_id: c.accountId,
        redirect_uri: c.redirectUri,
        code_challenge: c.codeChallenge,
        scope: c.scope.join(' '),
        resource: c.resource,
        created_at: c.createdAt.getTime(),
        expires_at: c.expiresAt.getTime(),
        used_at: null,
        grant_id: null,
        replayed_at: null,
        powers: storedPowers(c.powers),
        inboxes: storedReach(c.inboxes),
      })
      .execute();
  }

  async redeemCode(codeHash: string, now: Date): Promise<CodeRedemption> {
    // One conditional UPDATE: exactly one caller flips the code from unused to used.
    const claimed = await this.db
      .updateTable('oauth_codes')
      .set({ used_at: now.getTime() })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    if (claimed === undefined) {
      // Nothing claimed: unknown or expired (invalid), or already used (a replay).
      const r = await this.db
        .selectFrom('oauth_codes')
        .select('used_at')
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      if (r === undefined || r.used_at === null) return { status: 'invalid' };
      // Mark the replay first, then read which grant the code produced: if the first redemption has not created
      // its grant yet, the mark stops it (createGrant), so there is never a grant the replay could not name.
      await this.db
        .updateTable('oauth_codes')
        .set({ replayed_at: now.getTime() })
        .where('code_hash', '=', codeHash)
        .where('replayed_at', 'is', null)
        .execute();
      const after = await this.db
        .selectFrom('oauth_codes')
        .select('grant_id')
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return { status: 'replayed', grantId: after?.grant_id ?? null };
    }
    return {
      status: 'ok',
      code: {
        codeHash: claimed.code_hash,
        clientId: claimed.client_id,
        accountId: claimed.account_id as AccountId,
        redirectUri: claimed.redirect_uri,
        codeChallenge: claimed.code_challenge,
        scope: claimed.scope.split(' '),
        resource: claimed.resource,
        createdAt: toDate(claimed.created_at),
        expiresAt: toDate(claimed.expires_at),
        powers: readPowers(claimed.powers),
        inboxes: readReach(claimed.inboxes),
      },
    };
  }

  async createGrant(g: Grant, tokens: readonly TokenRecord[], fromCodeHash: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // Claim the code for this grant first: a replay that got in after the redemption has marked it.
      const linked = await tx
        .updateTable('oauth_codes')
        .set({ grant_id: g.id })
        .where('code_hash', '=', fromCodeHash)
        .where('replayed_at', 'is', null)
        .where('grant_id', 'is', null)
        .executeTakeFirst();
      if (linked.numUpdatedRows !== 1n) return false;
      await tx
        .insertInto('oauth_grants')
        .values({
          id: g.id,
          account_id: g.accountId,
          client_id: g.clientId,
          scope: g.scope.join(' '),
          resource: g.resource,
          created_at: g.createdAt.getTime(),
          last_used_at: null,
          revoked_at: null,
          powers: storedPowers(g.powers),
          inboxes: storedReach(g.inboxes),
        })
        .execute();
      if (tokens.length > 0) await tx.insertInto('oauth_tokens').values(tokens.map(toTokenRow)).execute();
      return true;
    });
  }

  async rotateRefresh(oldHash: string, next: readonly TokenRecord[], now: Date): Promise<RefreshRotation> {
    return this.db.transaction().execute(async (tx): Promise<RefreshRotation> => {
      const ms = now.getTime();
      const revoked = await tx
        .updateTable('oauth_tokens')
        .set({ revoked_at: ms })
        .where('hash', '=', oldHash)
        .where('kind', '=', 'refresh')
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', ms)
        .where('grant_id', 'in', (eb) =>
          eb.selectFrom('oauth_grants').select('id').where('revoked_at', 'is', null),
        )
        .returning('grant_id')
        .executeTakeFirst();
      if (revoked === undefined) {
        // Nothing revoked: unknown, not a refresh token, expired or of a revoked grant (invalid), or reused.
        const row = await tx
          .selectFrom('oauth_tokens')
          .select(['grant_id', 'revoked_at', 'kind'])
          .where('hash', '=', oldHash)
          .executeTakeFirst();
        if (row === undefined || row.kind !== 'refresh' || row.revoked_at === null)
          return { status: 'invalid' };
        return { status: 'reused', grantId: row.grant_id };
      }
      if (next.length > 0) await tx.insertInto('oauth_tokens').values(next.map(toTokenRow)).execute();
      const grant = await tx
        .selectFrom('oauth_grants')
        .selectAll()
        .where('id', '=', revoked.grant_id)
        .executeTakeFirstOrThrow();
      return { status: 'rotated', grant: toGrant(grant) };
    });
  }

  async replayableRotation(
    oldHash: string,
    successor: { readonly accessHash: string; readonly refreshHash: string },
    now: Date,
    window: { readonly receivedAt: Date; readonly withinMs: number },
  ): Promise<{ grant: Grant; accessExpiresAt: Date } | undefined> {
    const ms = now.getTime();
    // The pair is named by its hashes, and was made by the rotation (created when the old token was revoked).
    const r = await this.db
      .selectFrom('oauth_tokens as old')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'old.grant_id')
      .innerJoin('oauth_tokens as nr', (j) =>
        j
          .onRef('nr.grant_id', '=', 'old.grant_id')
          .onRef('nr.created_at', '=', 'old.revoked_at')
          .on('nr.hash', '=', successor.refreshHash)
          .on('nr.kind', '=', 'refresh')
          .on('nr.revoked_at', 'is', null),
      )
      .innerJoin('oauth_tokens as na', (j) =>
        j
          .onRef('na.grant_id', '=', 'old.grant_id')
          .onRef('na.created_at', '=', 'old.revoked_at')
          .on('na.hash', '=', successor.accessHash)
          .on('na.kind', '=', 'access')
          .on('na.revoked_at', 'is', null),
      )
      .selectAll('oauth_grants')
      .select('na.expires_at as access_expires_at')
      .where('old.hash', '=', oldHash)
      .where('old.kind', '=', 'refresh')
      .where('old.revoked_at', '>=', ms - window.withinMs)
      .where((eb) =>
        eb.or([eb('old.revoked_at', '>=', window.receivedAt.getTime()), eb('na.used_at', 'is', null)]),
      )
      .where('na.expires_at', '>', ms)
      .where('oauth_grants.revoked_at', 'is', null)
      .executeTakeFirst();
    return r && { grant: toGrant(r), accessExpiresAt: toDate(r.access_expires_at) };
  }

  async findLiveToken(
    hash: string,
    kind: TokenRecord['kind'],
    now: Date,
  ): Promise<{ token: TokenRecord; grant: Grant } | undefined> {
    const [r] = await this.live({ hash, kind, now: now.getTime() });
    if (r === undefined) return undefined;
    return {
      token: {
        hash: r.t_hash,
        kind: r.t_kind as TokenRecord['kind'],
        grantId: r.id,
        createdAt: toDate(r.t_created_at),
        expiresAt: toDate(r.t_expires_at),
        usedAt: r.t_used_at === null ? null : toDate(r.t_used_at),
      },
      grant: toGrant(r),
    };
  }

  async markUsed(hash: string, now: Date): Promise<void> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ used_at: now.getTime() })
      .where('hash', '=', hash)
      .where('used_at', 'is', null)
      .execute();
  }

  async touchGrant(grantId: string, now: Date): Promise<void> {
    await this.db
      .updateTable('oauth_grants')
      .set({ last_used_at: now.getTime() })
      .where('id', '=', grantId)
      .execute();
  }

  async revokeToken(
    hash: string,
    now: Date,
  ): Promise<{ kind: TokenRecord['kind']; grantId: string } | undefined> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now.getTime() })
      .where('hash', '=', hash)
      .where('revoked_at', 'is', null)
      .execute();
    const r = await this.db
      .selectFrom('oauth_tokens')
      .select(['kind', 'grant_id'])
      .where('hash', '=', hash)
      .executeTakeFirst();
    return r && { kind: r.kind as TokenRecord['kind'], grantId: r.grant_id };
  }

  async revokeGrant(grantId: string, now: Date): Promise<void> {
    await this.db
      .updateTable('oauth_grants')
      .set({ revoked_at: now.getTime() })
      .where('id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async listGrants(accountId: AccountId): Promise<Grant[]> {
    const rows = await this.db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toGrant);
  }

  async deleteSpent(before: Date): Promise<SpentRemoved> {
    const ms = before.getTime();
    const codes = await this.db.deleteFrom('oauth_codes').where('expires_at', '<', ms).executeTakeFirst();
    const tokens = await this.db.deleteFrom('oauth_tokens').where('expires_at', '<', ms).executeTakeFirst();
    // After the tokens: a sign-in whose last refresh token has just gone goes with them. Its tokens go by cascade.
    const grants = await this.db
      .deleteFrom('oauth_grants')
      .where((eb) =>
        eb.or([
          eb('revoked_at', '<', ms),
          eb.and([
            eb('created_at', '<', ms),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('oauth_tokens')
                  .select('oauth_tokens.hash')
                  .whereRef('oauth_tokens.grant_id', '=', 'oauth_grants.id'),
              ),
            ),
          ]),
        ]),
      )
      .executeTakeFirst();
    return {
      codes: Number(codes.numDeletedRows),
      tokens: Number(tokens.numDeletedRows),
      grants: Number(grants.numDeletedRows),
    };
  }

  async setClientAllowed(accountId: AccountId, clientId: string, allowed: Allowed): Promise<number> {
    const r = await this.db
      .updateTable('oauth_grants')
      .set({ powers: storedPowers(allowed.powers), inboxes: storedReach(allowed.inboxes) })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async revokeClientGrants(accountId: AccountId, clientId: string, now: Date): Promise<number> {
    const r = await this.db
      .updateTable('oauth_grants')
      .set({ revoked_at: now.getTime() })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async revokeAllGrants(accountId: AccountId, now: Date): Promise<number> {
    const r = await this.db
      .updateTable('oauth_grants')
      .set({ revoked_at: now.getTime() })
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
