import type { AccountId } from '../../core/accounts/account.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { LinkPurpose, SecretLink, SecretLinkStore } from '../../core/inboxes/secret-link-store.ts';
import type { JsonValue } from '../../core/settings/settings-store.ts';
import type { Db } from './database.ts';
import { toDate } from './sql-errors.ts';

export class KyselySecretLinkStore implements SecretLinkStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async create(l: Omit<SecretLink, 'attempts'>): Promise<void> {
    await this.db
      .insertInto('secret_links')
      .values({
        id_hash: l.idHash,
        purpose: l.purpose,
        account_id: l.accountId,
        inbox_id: l.inboxId,
        payload_json: JSON.stringify(l.payload),
        created_at: l.createdAt.getTime(),
        expires_at: l.expiresAt.getTime(),
        used_at: null,
      })
      .execute();
  }

  async deleteExpired(before: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('secret_links')
      .where('expires_at', '<', before.getTime())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async find(idHash: string, purpose: LinkPurpose, now: Date): Promise<SecretLink | undefined> {
    const r = await this.db
      .selectFrom('secret_links')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return (
      r && {
        idHash: r.id_hash,
        purpose: r.purpose as LinkPurpose,
        accountId: r.account_id as AccountId,
        inboxId: r.inbox_id as InboxId | null,
        payload: JSON.parse(r.payload_json) as JsonValue,
        attempts: r.attempts,
        createdAt: toDate(r.created_at),
        expiresAt: toDate(r.expires_at),
      }
    );
  }

  async countAttempt(idHash: string): Promise<number> {
    const r = await this.db
      .updateTable('secret_links')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id_hash', '=', idHash)
      .returning('attempts')
      .executeTakeFirst();
    return r?.attempts ?? 0;
  }

  async consume(idHash: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('secret_links')
      .set({ used_at: now.getTime() })
      .where('id_hash', '=', idHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }
}
