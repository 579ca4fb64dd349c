import type { Selectable } from 'kysely';
import type { Account, AccountId, PaymentState, Plan } from '../../core/accounts/account.ts';
import type { AccountStore, NewAccount } from '../../core/accounts/account-store.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { Db } from './database.ts';
import type { AccountsTable } from './schema.ts';
import { deleteAgainOnDeadlock, isUniqueViolation, toDate, toDateOrNull } from './sql-errors.ts';

const toAccount = (r: Selectable<AccountsTable>): Account => ({
  id: r.id as AccountId,
  email: r.email,
  plan: r.plan as Plan,
  trialEndsAt: toDateOrNull(r.trial_ends_at),
  paymentState: r.payment_state as PaymentState,
  createdAt: toDate(r.created_at),
});

export class KyselyAccountStore implements AccountStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async create(a: NewAccount): Promise<Result<Account, 'email_taken'>> {
    const row = {
      id: a.id,
      email: a.email.toLowerCase(),
      plan: a.plan,
      trial_ends_at: a.trialEndsAt?.getTime() ?? null,
      payment_state: 'ok',
      password_hash: a.passwordHash ?? null,
      created_at: a.createdAt.getTime(),
      updated_at: a.createdAt.getTime(),
    };
    try {
      await this.db.insertInto('accounts').values(row).execute();
    } catch (e) {
      if (isUniqueViolation(e)) return err('email_taken');
      throw e;
    }
    return ok(toAccount(row));
  }

  async get(id: AccountId): Promise<Account | undefined> {
    const r = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toAccount(r);
  }

  async findByEmail(email: string): Promise<Account | undefined> {
    const r = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
    return r && toAccount(r);
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return r.n;
  }

  async list(): Promise<Account[]> {
    const rows = await this.db
      .selectFrom('accounts')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAccount);
  }

  async setPlan(id: AccountId, plan: Plan, trialEndsAt: Date | null): Promise<Account | undefined> {
    const r = await this.db
      .updateTable('accounts')
      .set({ plan, trial_ends_at: trialEndsAt?.getTime() ?? null, updated_at: Date.now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return r && toAccount(r);
  }

  async setPaymentState(id: AccountId, state: PaymentState): Promise<Account | undefined> {
    const r = await this.db
      .updateTable('accounts')
      .set({ payment_state: state, updated_at: Date.now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return r && toAccount(r);
  }

  async getPasswordHash(id: AccountId): Promise<string | null | undefined> {
    const r = await this.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', id)
      .executeTakeFirst();
    return r?.password_hash;
  }

  async setPasswordHash(id: AccountId, hash: string): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({ password_hash: hash, updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: AccountId): Promise<boolean> {
    const r = await deleteAgainOnDeadlock(() =>
      this.db.transaction().execute(async (tx) => {
        // Settings are keyed by a scope, not a foreign key (the instance's own live there too), so no cascade reaches
        // the account's: its triage profile (correspondents' addresses, the person's notes) and send switch go here.
        await tx.deleteFrom('settings').where('scope', '=', id).execute();
        return tx.deleteFrom('accounts').where('id', '=', id).executeTakeFirst();
      }),
    );
    return r.numDeletedRows > 0n;
  }
}
