import type { ClientAuthMethod, ClientStore, OAuthClient } from '../../oauth/client/client.ts';
import type { AuthorizationRequest, RequestStore } from '../../oauth/request/authorization-request.ts';
import type { Db } from './database.ts';
import { toDate } from './sql-errors.ts';

export class KyselyOAuthClientStore implements ClientStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async save(c: OAuthClient): Promise<void> {
    const row = {
      client_id: c.clientId,
      kind: c.kind,
      client_name: c.clientName,
      client_uri: c.clientUri,
      redirect_uris_json: JSON.stringify(c.redirectUris),
      token_endpoint_auth_method: c.tokenEndpointAuthMethod,
      secret_hash: c.secretHash,
      created_at: c.createdAt.getTime(),
    };
    // Metadata documents are re-fetched and saved over the cached copy.
    await this.db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ ...row }))
      .execute();
  }

  async get(clientId: string): Promise<OAuthClient | undefined> {
    const r = await this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return (
      r && {
        clientId: r.client_id,
        kind: r.kind as OAuthClient['kind'],
        clientName: r.client_name,
        clientUri: r.client_uri,
        redirectUris: JSON.parse(r.redirect_uris_json) as string[],
        tokenEndpointAuthMethod: r.token_endpoint_auth_method as ClientAuthMethod,
        secretHash: r.secret_hash,
        createdAt: toDate(r.created_at),
      }
    );
  }

  async deleteUnused(before: Date): Promise<number> {
    // Read once, not per client (SQLite would scan the three tables for each of a stranger's registrations).
    const named = this.db
      .selectFrom('oauth_grants')
      .select('client_id')
      .union(this.db.selectFrom('oauth_codes').select('client_id'))
      .union(this.db.selectFrom('oauth_requests').select('client_id'));
    const r = await this.db
      .deleteFrom('oauth_clients')
      .where('created_at', '<', before.getTime())
      .where('client_id', 'not in', named)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}

export class KyselyOAuthRequestStore implements RequestStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async save(r: AuthorizationRequest): Promise<void> {
    await this.db
      .insertInto('oauth_requests')
      .values({
        id: r.id,
        client_id: r.clientId,
        redirect_uri: r.redirectUri,
        state: r.state,
        code_challenge: r.codeChallenge,
        scope: r.scope.join(' '),
        resource: r.resource,
        created_at: r.createdAt.getTime(),
        expires_at: r.expiresAt.getTime(),
      })
      .execute();
  }

  async get(id: string, now: Date): Promise<AuthorizationRequest | undefined> {
    const r = await this.db
      .selectFrom('oauth_requests')
      .selectAll()
      .where('id', '=', id)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return (
      r && {
        id: r.id,
        clientId: r.client_id,
        redirectUri: r.redirect_uri,
        state: r.state,
        codeChallenge: r.code_challenge,
        scope: r.scope.split(' '),
        resource: r.resource,
        createdAt: toDate(r.created_at),
        expiresAt: toDate(r.expires_at),
      }
    );
  }

  async take(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('oauth_requests').where('id', '=', id).executeTakeFirst();
    return r.numDeletedRows === 1n;
  }

  async deleteExpired(now: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('oauth_requests')
      .where('expires_at', '<=', now.getTime())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
