import { CompiledQuery } from 'kysely';
import { INSTANCE_SCOPE, KEY_CHECK_SETTING } from '../../core/settings/settings-store.ts';
import type { Aead } from '../../lib/aead.ts';
import { COUNT_NODES_SQL, WATCH_APPLICATION_NAME } from '../jobs/pg-inbox-claims.ts';
import type { Db } from './database.ts';
import { secondFactorAd } from './kysely-second-factor-store.ts';

/** The key given as the current one is not the key the database's credentials are sealed under. */
export class NotTheDatabaseKeyError extends Error {
  override readonly name = 'NotTheDatabaseKeyError';
}

/** A service is running on the database: it would go on writing what the command is changing or copying. */
export class ServiceRunningError extends Error {
  override readonly name = 'ServiceRunningError';
}

/** Refuses while `running` nodes run on the database, saying what to do once they are stopped (`then`). */
export function refuseWhileRunning(running: number, then: string): void {
  if (running > 0)
    throw new ServiceRunningError(
      `${String(running)} Inbox Triage instance${running === 1 ? ' is' : 's are'} running on this database: ` +
        `stop every instance first, ${then}`,
    );
}

export interface KeyChange {
  /** Opens what is sealed now, and its key's check value, as the database records it. */
  readonly from: { readonly credentials: Aead; readonly check: string };
  /** Seals what is re-sealed, and the check value recorded for it. */
  readonly to: { readonly credentials: Aead; readonly check: string };
  readonly now: Date;
}

export interface Resealed {
  /** Credentials opened under the old key and sealed under the new one. */
  readonly resealed: number;
  /** Credentials the old key does not open either (sealed under a key lost before): left as they are. */
  readonly unreadable: number;
  /** The same of two-step sign-in secrets (decision 0089): one unreadable asks its person for a recovery code. */
  readonly secondFactors: { readonly resealed: number; readonly unreadable: number };
}

/**
 * Re-seals every stored mail credential under a new key and records the new key's check value, in one transaction
 * (decision 0066): a crash part-way leaves everything under the old key. The check value is changed first: an instance
 * starting meanwhile on PostgreSQL waits at its own key check until the commit, then finds the new value and stops.
 * On PostgreSQL the transaction also refuses while any node's watch session is connected; on SQLite the caller holds
 * the instance lock (decision 0052), which a running service would hold.
 */
export async function resealCredentials(db: Db, change: KeyChange): Promise<Resealed> {
  const json = (check: string) => JSON.stringify(check);
  return db.kysely.transaction().execute(async (tx) => {
    const changed = await tx
      .updateTable('settings')
      .set({ value_json: json(change.to.check), updated_at: change.now.getTime() })
      .where('scope', '=', INSTANCE_SCOPE)
      .where('key', '=', KEY_CHECK_SETTING)
      .where('value_json', '=', json(change.from.check))
      .executeTakeFirst();
    if (changed.numUpdatedRows === 0n) {
      const recorded = await tx
        .selectFrom('settings')
        .select('value_json')
        .where('scope', '=', INSTANCE_SCOPE)
        .where('key', '=', KEY_CHECK_SETTING)
        .executeTakeFirst();
      if (recorded !== undefined)
        throw new NotTheDatabaseKeyError(
          'the current key (ENCRYPTION_KEY, or DATA_DIR/encryption.key when it is not set) is not the key this ' +
            "database's credentials are sealed under: run this with that key",
        );
      // Never started with a key: there is nothing it sealed, and the new key is recorded as the database's.
      await tx
        .insertInto('settings')
        .values({
          scope: INSTANCE_SCOPE,
          key: KEY_CHECK_SETTING,
          value_json: json(change.to.check),
          updated_at: change.now.getTime(),
        })
        .execute();
    }
    if (db.dialect === 'postgres') {
      const { rows } = await tx.executeQuery<{ n: string }>(
        CompiledQuery.raw(COUNT_NODES_SQL, [WATCH_APPLICATION_NAME]),
      );
      refuseWhileRunning(Number(rows[0]?.n ?? 0), 'then rotate the key and start them with the new one');
    }
    const counts = { resealed: 0, unreadable: 0 };
    const factorCounts = { resealed: 0, unreadable: 0 };
    const credentials = await tx.selectFrom('inbox_credentials').select(['inbox_id', 'sealed']).execute();
    for (const c of credentials) {
      const again = resealed(change, c.sealed, c.inbox_id, counts);
      if (again !== undefined)
        await tx
          .updateTable('inbox_credentials')
          .set({ sealed: again })
          .where('inbox_id', '=', c.inbox_id)
          .execute();
    }
    // Second factors' secrets are sealed under the same key (decision 0089), bound to their account.
    const factors = await tx.selectFrom('second_factors').select(['account_id', 'sealed']).execute();
    for (const f of factors) {
      const again = resealed(change, f.sealed, secondFactorAd(f.account_id), factorCounts);
      if (again !== undefined)
        await tx
          .updateTable('second_factors')
          .set({ sealed: again })
          .where('account_id', '=', f.account_id)
          .execute();
    }
    return { ...counts, secondFactors: factorCounts };
  });
}

/** `sealed` opened under the old key and sealed under the new, counted; undefined (counted) when the old key does not open it. */
function resealed(
  change: KeyChange,
  sealed: string,
  associatedData: string,
  counts: { resealed: number; unreadable: number },
): string | undefined {
  const opened = change.from.credentials.open(sealed, associatedData);
  if (opened === undefined) {
    counts.unreadable++;
    return undefined;
  }
  counts.resealed++;
  return change.to.credentials.seal(opened, associatedData);
}
