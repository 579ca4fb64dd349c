import type { AccountId } from '../../core/accounts/account.ts';
import type { SecondFactor, SecondFactorStore } from '../../core/sessions/second-factor-store.ts';
import type { Aead } from '../../lib/aead.ts';
import type { Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';
import { toDate } from './sql-errors.ts';

/** The associated data a secret is sealed with: a sealed value copied onto another account's row does not open. */
export const secondFactorAd = (accountId: string) => `second-factor:${accountId}`;

/**
 * Second factors with their TOTP secret sealed under the credential key (so a key rotation re-seals them with the mail
 * credentials, decision 0066) and bound to the account. Spends are conditional statements: a step is taken only if it
 * is later than the last, a recovery code only by deleting its row.
 */
export class KyselySecondFactorStore implements SecondFactorStore {
  private readonly db: Db['kysely'];
  private readonly aead: Aead;
  constructor(db: Db, aead: Aead) {
    this.db = db.kysely;
    this.aead = aead;
  }

  async get(accountId: AccountId): Promise<SecondFactor | undefined> {
    const r = await this.db
      .selectFrom('second_factors as f')
      .select((eb) => [
        'f.sealed',
        'f.last_step',
        'f.created_at',
        eb
          .selectFrom('recovery_codes as r')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('r.account_id', '=', 'f.account_id')
          .as('left'),
      ])
      .where('f.account_id', '=', accountId)
      .executeTakeFirst();
    if (r === undefined) return undefined;
    const secret = this.aead.open(r.sealed, secondFactorAd(accountId));
    // Unopenable (a lost key): no code can match, so only a recovery code or the operator turns it off.
    return {
      secret: secret ?? null,
      lastStep: r.last_step,
      recoveryCodesLeft: r.left ?? 0,
      createdAt: toDate(r.created_at),
    };
  }

  async enable(
    accountId: AccountId,
    secret: string,
    confirmedStep: number,
    recoveryHashes: readonly string[],
    now: Date,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const added = await tx
        .insertInto('second_factors')
        .values({
          account_id: accountId,
          sealed: this.aead.seal(secret, secondFactorAd(accountId)),
          last_step: confirmedStep,
          created_at: now.getTime(),
        })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      await insertRecoveryCodes(tx, accountId, recoveryHashes);
      return true;
    });
  }

  async spendStep(accountId: AccountId, step: number): Promise<boolean> {
    const r = await this.db
      .updateTable('second_factors')
      .set({ last_step: step })
      .where('account_id', '=', accountId)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async spendRecoveryCode(accountId: AccountId, hash: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('recovery_codes')
      .where('account_id', '=', accountId)
      .where('code_hash', '=', hash)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  async replaceRecoveryCodes(accountId: AccountId, recoveryHashes: readonly string[]): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // The factor's row taken first: a turning off at the same moment comes before or after, never between.
      const on = await tx
        .updateTable('second_factors')
        .set((eb) => ({ last_step: eb.ref('last_step') }))
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (on.numUpdatedRows === 0n) return false;
      await tx.deleteFrom('recovery_codes').where('account_id', '=', accountId).execute();
      await insertRecoveryCodes(tx, accountId, recoveryHashes);
      return true;
    });
  }

  async disable(accountId: AccountId): Promise<boolean> {
    const r = await this.db
      .deleteFrom('second_factors')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}

async function insertRecoveryCodes(
  tx: Transaction<Database>,
  accountId: AccountId,
  hashes: readonly string[],
): Promise<void> {
  if (hashes.length === 0) return;
  await tx
    .insertInto('recovery_codes')
    .values(hashes.map((h) => ({ account_id: accountId, code_hash: h })))
    .execute();
}
