import { INSTANCE_SCOPE } from '../../core/settings/settings-store.ts';
import {
  COPY_MARK_SETTING,
  copyMark,
  RESTORED_SETTING,
  type RestoredCopy,
} from '../../core/settings/restored-copy.ts';
import type { Db } from './database.ts';

/**
 * Marks a database as a copy made at `madeAt` (null: not known), for `inbox-triage after-restore` on a database
 * restored by other means than our backup (decision 0137). `backup` writes the same row into its copy
 * (sqlite/backup.ts).
 */
export async function markAsCopy(db: Db, madeAt: Date | null, now: Date): Promise<void> {
  const value_json = copyMark(madeAt);
  await db.kysely
    .insertInto('settings')
    .values({ scope: INSTANCE_SCOPE, key: COPY_MARK_SETTING, value_json, updated_at: now.getTime() })
    .onConflict((oc) => oc.columns(['scope', 'key']).doUpdateSet({ value_json, updated_at: now.getTime() }))
    .execute();
}

/**
 * A database marked as a copy is taken up once (decision 0137), in one transaction: the mark is removed first, so of
 * nodes starting together on it one withdraws, and the others find no mark once it commits. What the copy holds as
 * still open, but what may have been used, spent or revoked after the copy was made, is withdrawn:
 *
 * - approvals waiting (sends, unsubscribe requests) and those cut mid-request become `unknown`, never made again
 *   on their own: the person may have approved one, and it gone out, after the copy was made;
 * - browser sessions end, and agents' OAuth sign-ins: a session signed out or an agent disconnected after the copy
 *   was made would be back;
 * - single-use links (a password form, a reset, a download) and draft-card codes end.
 *
 * Undefined when the database is not a copy.
 */
export async function takeUpRestoredCopy(db: Db, now: Date): Promise<RestoredCopy | undefined> {
  const at = now.getTime();
  // A database of an earlier version (an upgrade taken back, `after-restore` run before the older version starts) may
  // lack the tables of later features: what it lacks, it holds nothing open in.
  const tables = new Set((await db.kysely.introspection.getTables()).map((t) => t.name));
  const none = { numUpdatedRows: 0n };
  return db.kysely.transaction().execute(async (tx) => {
    const mark = await tx
      .deleteFrom('settings')
      .where('scope', '=', INSTANCE_SCOPE)
      .where('key', '=', COPY_MARK_SETTING)
      .returning('value_json')
      .executeTakeFirst();
    if (mark === undefined) return undefined;
    const made: unknown = JSON.parse(mark.value_json);
    const copyMadeAt = typeof made === 'string' && !Number.isNaN(Date.parse(made)) ? new Date(made) : null;
    const reason = `restored from a copy of the database made ${
      copyMadeAt === null ? 'earlier' : `at ${copyMadeAt.toISOString()}`
    }: it may have been carried out after that`;
    const sends = await tx
      .updateTable('pending_sends')
      .set({ status: 'unknown', finished_at: at, error: reason })
      .where('status', 'in', ['pending', 'sending'])
      .executeTakeFirst();
    const unsubscribes = !tables.has('pending_unsubscribes')
      ? none
      : await tx
          .updateTable('pending_unsubscribes')
          .set({ status: 'unknown', finished_at: at, error: reason })
          .where('status', 'in', ['pending', 'posting'])
          .executeTakeFirst();
    const sessions = await tx.deleteFrom('sessions').executeTakeFirst();
    const signIns = await tx
      .updateTable('oauth_grants')
      .set({ revoked_at: at })
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const links = await tx
      .updateTable('secret_links')
      .set({ expires_at: at })
      .where('expires_at', '>', at)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    const cardCodes = !tables.has('card_codes')
      ? none
      : await tx
          .updateTable('card_codes')
          .set({ expires_at: at })
          .where('expires_at', '>', at)
          .where('used_at', 'is', null)
          .executeTakeFirst();
    const notice = JSON.stringify({
      copyMadeAt: copyMadeAt?.toISOString() ?? null,
      restoredAt: now.toISOString(),
    });
    await tx
      .insertInto('settings')
      .values({ scope: INSTANCE_SCOPE, key: RESTORED_SETTING, value_json: notice, updated_at: at })
      .onConflict((oc) => oc.columns(['scope', 'key']).doUpdateSet({ value_json: notice, updated_at: at }))
      .execute();
    return {
      copyMadeAt,
      sends: Number(sends.numUpdatedRows),
      unsubscribes: Number(unsubscribes.numUpdatedRows),
      sessions: Number(sessions.numDeletedRows),
      signIns: Number(signIns.numUpdatedRows),
      links: Number(links.numUpdatedRows) + Number(cardCodes.numUpdatedRows),
    };
  });
}
