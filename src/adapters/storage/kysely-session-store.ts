import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { SessionRecord, SessionStore } from '../../core/sessions/session-store.ts';
import type { Db } from './database.ts';
import type { SessionsTable } from './schema.ts';
import { toDate } from './sql-errors.ts';

const toSession = (r: Selectable<SessionsTable>): SessionRecord => ({
  idHash: r.id_hash,
  accountId: r.account_id as AccountId,
  createdAt: toDate(r.created_at),
  expiresAt: toDate(r.expires_at),
  lastSeenAt: toDate(r.last_seen_at),
  userAgent: r.user_agent,
});

export class KyselySessionStore implements SessionStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async create(s: SessionRecord): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: s.idHash,
        account_id: s.accountId,
        created_at: s.createdAt.getTime(),
        expires_at: s.expiresAt.getTime(),
        last_seen_at: s.lastSeenAt.getTime(),
        user_agent: s.userAgent,
      })
      .execute();
  }

  async findLive(idHash: string, now: Date): Promise<SessionRecord | undefined> {
    const r = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r && toSession(r);
  }

  async touch(idHash: string, now: Date, expiresAt: Date): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_seen_at: now.getTime(), expires_at: expiresAt.getTime() })
      .where('id_hash', '=', idHash)
      .execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async listLive(accountId: AccountId, now: Date): Promise<SessionRecord[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now.getTime())
      .orderBy('last_seen_at', 'desc')
      .orderBy('id_hash')
      .execute();
    return rows.map(toSession);
  }

  async deleteOthers(accountId: AccountId, keepIdHash: string): Promise<number> {
    const r = await this.db
      .deleteFrom('sessions')
      .where('account_id', '=', accountId)
      .where('id_hash', '!=', keepIdHash)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteExpired(now: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('sessions')
      .where('expires_at', '<=', now.getTime())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteAllFor(accountId: AccountId): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
