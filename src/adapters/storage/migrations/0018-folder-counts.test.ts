import { afterEach, describe, expect, it } from 'vitest';
import { newFolderId, seedInbox } from '../../../core/messages/folder-store.contract.ts';
import { newSummary } from '../../../core/messages/message-store.contract.ts';
import type { FolderId } from '../../../core/messages/folder.ts';
import { migrateTo, migrationTargets } from '../../../../test/support/migration-targets.ts';
import { createStores, migrateToLatest, openDatabase, type Db } from '../index.ts';

// Decision 0036: an install indexed before the counts were kept gets them from its rows, once.
const targets = migrationTargets('counts-');

for (const { name, target } of targets) {
  describe(`migration 0018 on ${name}: folder counts from an index made before it`, () => {
    let db: Db | undefined;
    afterEach(async () => {
      await db?.close();
    });

    it('counts the rows already indexed, and keeps counting after', async () => {
      db = openDatabase(await target());
      await migrateTo(db, '0017-change-counts');
      const stores = createStores(db);
      const inbox = await seedInbox(stores);
      const [a, b, empty] = await stores.folders.replaceAll(
        inbox,
        [
          { path: 'A', name: 'A', canonical: null },
          { path: 'B', name: 'B', canonical: null },
          { path: 'C', name: 'C', canonical: null },
        ],
        newFolderId,
      );
      await stores.messages.upsertMany(
        Array.from({ length: 30 }, (_, n) => newSummary(inbox, n < 20 ? a!.id : b!.id, n + 1)),
      );
      expect((await migrateToLatest(db))[0]).toBe('0018-folder-counts');

      const totals = async (folderIds: FolderId[], unreadOnly: boolean) =>
        (await stores.messages.headlines(inbox, { folderIds, unreadOnly, limit: 5, offset: 0 })).total;
      // newSummary makes every other message unread.
      expect(await totals([a!.id], false)).toBe(20);
      expect(await totals([a!.id], true)).toBe(10);
      expect(await totals([b!.id, a!.id], false)).toBe(30);
      expect(await totals([empty!.id], false)).toBe(0);
      await stores.messages.upsertMany([newSummary(inbox, empty!.id, 99, { unread: true })]);
      expect(await totals([empty!.id], true)).toBe(1);
    });
  });
}
