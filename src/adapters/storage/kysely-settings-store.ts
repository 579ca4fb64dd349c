import { INSTANCE_SCOPE, type JsonValue, type SettingsStore } from '../../core/settings/settings-store.ts';
import type { Db } from './database.ts';
import { isUniqueViolation } from './sql-errors.ts';

export class KyselySettingsStore implements SettingsStore {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    const r = await this.db
      .selectFrom('settings')
      .select('value_json')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
    return r === undefined ? undefined : (JSON.parse(r.value_json) as JsonValue);
  }

  async set(scope: string, key: string, value: JsonValue, now: Date): Promise<void> {
    const row = { scope, key, value_json: JSON.stringify(value), updated_at: now.getTime() };
    await this.db
      .insertInto('settings')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['scope', 'key']).doUpdateSet({ value_json: row.value_json, updated_at: row.updated_at }),
      )
      .execute();
  }

  async setIfAbsent(scope: string, key: string, value: JsonValue, now: Date): Promise<boolean> {
    try {
      await this.db
        .insertInto('settings')
        .values({ scope, key, value_json: JSON.stringify(value), updated_at: now.getTime() })
        .execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async replace(
    scope: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    now: Date,
  ): Promise<boolean> {
    if (expected === undefined) return this.setIfAbsent(scope, key, next, now);
    // Values are written by JSON.stringify and read by JSON.parse, so the text of what was read is the stored text.
    const r = await this.db
      .updateTable('settings')
      .set({ value_json: JSON.stringify(next), updated_at: now.getTime() })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('value_json', '=', JSON.stringify(expected))
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async deleteAccountless(): Promise<number> {
    const r = await this.db
      .deleteFrom('settings')
      .where('scope', '<>', INSTANCE_SCOPE)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('accounts').select('accounts.id').whereRef('accounts.id', '=', 'settings.scope'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async delete(scope: string, key: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('settings')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
