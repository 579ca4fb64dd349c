import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { Passkey, PasskeyStore } from '../../core/sessions/passkeys.ts';
import type { Db } from './database.ts';
import type { PasskeysTable } from './schema.ts';
import { isUniqueViolation, toDate } from './sql-errors.ts';

const fromRow = (r: Selectable<PasskeysTable>): Passkey => ({
  credentialId: r.credential_id,
  accountId: r.account_id as AccountId,
  publicKey: new Uint8Array(Buffer.from(r.public_key, 'base64url')),
  counter: r.counter,
  transports: JSON.parse(r.transports) as string[],
  name: r.name,
  createdAt: toDate(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : toDate(r.last_used_at),
});

/** Passkeys in the main database; deleting an account deletes its passkeys (foreign key). */
export class KyselyPasskeyStore implements PasskeyStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async add(p: Passkey): Promise<boolean> {
    try {
      await this.db
        .insertInto('passkeys')
        .values({
          credential_id: p.credentialId,
          account_id: p.accountId,
          public_key: Buffer.from(p.publicKey).toString('base64url'),
          counter: p.counter,
          transports: JSON.stringify(p.transports),
          name: p.name,
          created_at: p.createdAt.getTime(),
          last_used_at: p.lastUsedAt?.getTime() ?? null,
        })
        .execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async get(credentialId: string): Promise<Passkey | undefined> {
    const r = await this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return r === undefined ? undefined : fromRow(r);
  }

  async list(accountId: AccountId): Promise<Passkey[]> {
    const rows = await this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('credential_id')
      .execute();
    return rows.map(fromRow);
  }

  async recordUse(credentialId: string, counter: number, at: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('passkeys')
      .set({ counter, last_used_at: at.getTime() })
      .where('credential_id', '=', credentialId)
      .where((eb) => (counter === 0 ? eb('counter', '=', 0) : eb('counter', '<', counter)))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async remove(accountId: AccountId, credentialId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('passkeys')
      .where('account_id', '=', accountId)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async spendChallenge(hash: string, expiresAt: Date): Promise<boolean> {
    const r = await this.db
      .insertInto('passkey_challenges_spent')
      .values({ hash, expires_at: expiresAt.getTime() })
      .onConflict((oc) => oc.column('hash').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async deleteSpentChallenges(now: Date): Promise<number> {
    const r = await this.db
      .deleteFrom('passkey_challenges_spent')
      .where('expires_at', '<', now.getTime())
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
