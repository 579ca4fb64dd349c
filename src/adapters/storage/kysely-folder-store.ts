import type { Selectable } from 'kysely';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { CanonicalFolder, DiscoveredFolder, Folder, FolderId } from '../../core/messages/folder.ts';
import type { FolderStore, SyncStateUpdate } from '../../core/messages/folder-store.ts';
import type { Db } from './database.ts';
import type { FoldersTable } from './schema.ts';
import { hotQuery } from './hot-query.ts';
import { lockInbox } from './row-locks.ts';
import { toDateOrNull, inboxRowWrite } from './sql-errors.ts';

export const toFolder = (r: Selectable<FoldersTable>): Folder => ({
  id: r.id as FolderId,
  inboxId: r.inbox_id as InboxId,
  path: r.path,
  name: r.name,
  canonical: r.canonical as CanonicalFolder | null,
  selected: r.selected === 1,
  sync: {
    uidValidity: r.uid_validity,
    uidNext: r.uid_next,
    highestModseq: r.highest_modseq,
    cursor: r.cursor,
    windowLow: r.window_low,
    syncedAt: toDateOrNull(r.synced_at),
    version: r.sync_version,
  },
});

// Every read of an inbox's mail starts from its folders: compiled once (hot-query.ts).
export const foldersOf = (db: Db) =>
  hotQuery<Selectable<FoldersTable>, { inboxId: string }>(db, (p) =>
    db.kysely
      .selectFrom('folders')
      .selectAll()
      .where('inbox_id', 'in', [p('inboxId')])
      .orderBy('path'),
  );

export class KyselyFolderStore implements FolderStore {
  private readonly db: Db['kysely'];
  private readonly dialect: Db['dialect'];
  private readonly listQuery: ReturnType<typeof foldersOf>;
  constructor(db: Db) {
    this.db = db.kysely;
    this.dialect = db.dialect;
    this.listQuery = foldersOf(db);
  }

  async replaceAll(
    inboxId: InboxId,
    folders: readonly DiscoveredFolder[],
    newId: () => FolderId,
  ): Promise<Folder[]> {
    // A folder's one reference is its inbox: refused, the inbox was removed while its folders were read.
    await inboxRowWrite(
      this.db.transaction().execute(async (tx) => {
        await lockInbox(tx, this.dialect, inboxId);
        const existing = await tx
          .selectFrom('folders')
          .select(['id', 'path'])
          .where('inbox_id', '=', inboxId)
          .execute();
        const listed = new Set(folders.map((f) => f.path));
        const gone = existing.filter((f) => !listed.has(f.path)).map((f) => f.id);
        if (gone.length > 0) await tx.deleteFrom('folders').where('id', 'in', gone).execute();
        // An upsert, not a look-up then an insert: two syncs of the inbox at once (on two nodes) both find a new
        // folder missing, and the second insert would break the (inbox, path) key. It waits for the first instead.
        for (const f of folders)
          await tx
            .insertInto('folders')
            .values({
              id: newId(),
              inbox_id: inboxId,
              path: f.path,
              name: f.name,
              canonical: f.canonical,
              selected: 0,
            })
            .onConflict((oc) =>
              oc.columns(['inbox_id', 'path']).doUpdateSet({ name: f.name, canonical: f.canonical }),
            )
            .execute();
      }),
    );
    return this.list(inboxId);
  }

  async list(inboxId: InboxId): Promise<Folder[]> {
    return (await this.listQuery({ inboxId })).map(toFolder);
  }

  async get(inboxId: InboxId, id: FolderId): Promise<Folder | undefined> {
    const r = await this.db
      .selectFrom('folders')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && toFolder(r);
  }

  async setSelected(inboxId: InboxId, ids: readonly FolderId[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await lockInbox(tx, this.dialect, inboxId);
      await tx.updateTable('folders').set({ selected: 0 }).where('inbox_id', '=', inboxId).execute();
      if (ids.length > 0) {
        await tx
          .updateTable('folders')
          .set({ selected: 1 })
          .where('inbox_id', '=', inboxId)
          .where('id', 'in', [...ids])
          .execute();
      }
    });
  }

  async advanceSync(id: FolderId, expectedVersion: number, next: SyncStateUpdate): Promise<boolean> {
    const r = await this.db
      .updateTable('folders')
      .set({
        uid_validity: next.uidValidity,
        uid_next: next.uidNext,
        highest_modseq: next.highestModseq,
        cursor: next.cursor,
        window_low: next.windowLow,
        synced_at: next.syncedAt?.getTime() ?? null,
        sync_version: expectedVersion + 1,
      })
      .where('id', '=', id)
      .where('sync_version', '=', expectedVersion)
      .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }

  async lowerWindow(id: FolderId, uidValidity: string | null, windowLow: number): Promise<void> {
    await this.db
      .updateTable('folders')
      .set((eb) => ({ window_low: windowLow, sync_version: eb('sync_version', '+', 1) }))
      .where('id', '=', id)
      .where('uid_validity', uidValidity === null ? 'is' : '=', uidValidity)
      .where('window_low', '>', windowLow)
      .execute();
  }
}
