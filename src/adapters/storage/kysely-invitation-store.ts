import type { Invitation, InvitationStore } from '../../core/accounts/invitation-store.ts';
import type { Db } from './database.ts';
import { toDate } from './sql-errors.ts';

export class KyselyInvitationStore implements InvitationStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async create(i: Invitation): Promise<void> {
    await this.db
      .insertInto('invitations')
      .values({
        id_hash: i.idHash,
        email: i.email,
        created_at: i.createdAt.getTime(),
        expires_at: i.expiresAt.getTime(),
        used_at: null,
      })
      .execute();
  }

  async findLive(idHash: string, now: Date): Promise<Invitation | undefined> {
    const r = await this.db
      .selectFrom('invitations')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return (
      r && {
        idHash: r.id_hash,
        email: r.email,
        createdAt: toDate(r.created_at),
        expiresAt: toDate(r.expires_at),
      }
    );
  }

  async consume(idHash: string, now: Date): Promise<boolean> {
    // One conditional DELETE: the row is taken by exactly one caller. (`used_at` is left from when rows stayed.)
    const r = await this.db
      .deleteFrom('invitations')
      .where('id_hash', '=', idHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r.numDeletedRows === 1n;
  }

  async deleteExpired(now: Date): Promise<number> {
    // Spent ones too: rows used before invitations were taken out when spent.
    const r = await this.db
      .deleteFrom('invitations')
      .where((eb) => eb.or([eb('expires_at', '<=', now.getTime()), eb('used_at', 'is not', null)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
