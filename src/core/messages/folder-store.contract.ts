import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { FolderId } from './folder.ts';
import type { FolderStore } from './folder-store.ts';

export interface FolderStoreHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
  folders: FolderStore;
}

export const newFolderId = (): FolderId => newId('fld') as FolderId;

export async function seedInbox(h: { accounts: AccountStore; inboxes: InboxStore }): Promise<InboxId> {
  const acct = await seedAccount(h.accounts);
  const inbox = newInbox(acct);
  await h.inboxes.create(inbox);
  return inbox.id;
}

/** A seeded inbox with one folder, INBOX (the migrations' tests and the listing bench fill it). */
export async function seedInboxFolder(h: FolderStoreHarness): Promise<{ inbox: InboxId; folder: FolderId }> {
  const inbox = await seedInbox(h);
  const [folder] = await h.folders.replaceAll(
    inbox,
    [{ path: 'INBOX', name: 'Inbox', canonical: 'inbox' }],
    newFolderId,
  );
  if (folder === undefined) throw new Error('no folder made');
  return { inbox, folder: folder.id };
}

const STANDARD = [
  { path: 'INBOX', name: 'Inbox', canonical: 'inbox' as const },
  { path: 'Sent', name: 'Sent', canonical: 'sent' as const },
  { path: 'Projects/Ünïcode', name: 'Ünïcode', canonical: null },
];

export function folderStoreContract(h: () => FolderStoreHarness): void {
  describe('FolderStore contract', () => {
    it('records discovered folders with an empty sync state, unselected', async () => {
      const inbox = await seedInbox(h());
      const folders = await h().folders.replaceAll(inbox, STANDARD, newFolderId);
      expect(folders.map((f) => f.path).sort()).toEqual(['INBOX', 'Projects/Ünïcode', 'Sent']);
      expect(folders.every((f) => !f.selected && f.sync.version === 0 && f.sync.uidValidity === null)).toBe(
        true,
      );
    });

    it('keeps ids stable across re-discovery and drops folders no longer listed', async () => {
      const inbox = await seedInbox(h());
      const first = await h().folders.replaceAll(inbox, STANDARD, newFolderId);
      const inboxFolder = first.find((f) => f.path === 'INBOX');
      const second = await h().folders.replaceAll(
        inbox,
        [{ path: 'INBOX', name: 'Inbox (renamed)', canonical: 'inbox' }],
        newFolderId,
      );
      expect(second).toHaveLength(1);
      expect(second[0]).toMatchObject({ id: inboxFolder?.id, name: 'Inbox (renamed)' });
    });

    it('records the same new folders listed by two syncs at once (two nodes) once each, with one id per path', async () => {
      const inbox = await seedInbox(h());
      // Connections open first (a pool opens them on demand), so that the two really run side by side.
      await Promise.all(Array.from({ length: 4 }, () => h().folders.list(inbox)));
      const both = await Promise.all([
        h().folders.replaceAll(inbox, STANDARD, newFolderId),
        h().folders.replaceAll(inbox, STANDARD, newFolderId),
      ]);
      const listed = await h().folders.list(inbox);
      expect(listed.map((f) => f.path)).toEqual(['INBOX', 'Projects/Ünïcode', 'Sent']);
      for (const answer of both) expect(answer.map((f) => f.id)).toEqual(listed.map((f) => f.id));
    });

    it('takes the folder list and the selection of several syncs at once (on several nodes) without a deadlock', async () => {
      // A sync records the folders it listed, then selects some. Several at once on PostgreSQL locked the same rows
      // in different orders, the upsert in the listing's order and the selection in its scan's, until one was cut
      // off as a deadlock (sync_inbox at once on two nodes: "deadlock detected").
      const inbox = await seedInbox(h());
      const many = [
        ...STANDARD,
        ...Array.from({ length: 12 }, (_, i) => ({
          path: `Lists/${String(i)}`,
          name: String(i),
          canonical: null,
        })),
      ];
      const first = await h().folders.replaceAll(inbox, many, newFolderId);
      await Promise.all(Array.from({ length: 8 }, () => h().folders.list(inbox)));
      for (let round = 0; round < 5; round++) {
        await Promise.all(
          Array.from({ length: 6 }, async (_, i) => {
            // The listing in another order each time, as servers and renames give it.
            const listed = i % 2 === 0 ? many : [...many].reverse();
            const folders = await h().folders.replaceAll(inbox, listed, newFolderId);
            await h().folders.setSelected(
              inbox,
              folders.filter((_, k) => (k + i + round) % 3 === 0).map((f) => f.id),
            );
          }),
        );
      }
      expect((await h().folders.list(inbox)).map((f) => f.id).sort()).toEqual(first.map((f) => f.id).sort());
    });

    it('selects exactly the given folders', async () => {
      const inbox = await seedInbox(h());
      const folders = await h().folders.replaceAll(inbox, STANDARD, newFolderId);
      await h().folders.setSelected(inbox, [folders[0]!.id, folders[1]!.id]);
      await h().folders.setSelected(inbox, [folders[1]!.id]);
      const selected = (await h().folders.list(inbox)).filter((f) => f.selected).map((f) => f.id);
      expect(selected).toEqual([folders[1]!.id]);
    });

    it('reads an inbox with its folders in one go, exactly as each store reads them, and only for its account', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const inbox = newInbox(acct);
      await h().inboxes.create(inbox);
      expect(await h().inboxes.getWithFolders(acct, inbox.id)).toEqual({
        inbox: await h().inboxes.get(acct, inbox.id),
        folders: [],
      });
      const [first] = await h().folders.replaceAll(inbox.id, STANDARD, newFolderId);
      await h().folders.setSelected(inbox.id, [first!.id]);
      await h().folders.advanceSync(first!.id, 0, {
        uidValidity: '7',
        uidNext: 12,
        highestModseq: '99',
        cursor: 'c',
        windowLow: 3,
        syncedAt: new Date('2030-01-02T00:00:00Z'),
      });
      await h().folders.replaceAll(await seedInbox(h()), STANDARD, newFolderId); // another inbox's folders
      const both = await h().inboxes.getWithFolders(acct, inbox.id);
      expect(both).toEqual({
        inbox: await h().inboxes.get(acct, inbox.id),
        folders: await h().folders.list(inbox.id),
      });
      expect(both!.folders.map((f) => f.path)).toEqual(['INBOX', 'Projects/Ünïcode', 'Sent']);
      expect(both!.folders[0]).toMatchObject({ selected: true, sync: { uidNext: 12, version: 1 } });
      expect(await h().inboxes.getWithFolders(other, inbox.id)).toBeUndefined();
      expect(await h().inboxes.getWithFolders(acct, newId('inbox') as InboxId)).toBeUndefined();
    });

    it('scopes get by inbox', async () => {
      const a = await seedInbox(h());
      const b = await seedInbox(h());
      const [f] = await h().folders.replaceAll(a, STANDARD.slice(0, 1), newFolderId);
      expect(await h().folders.get(a, f!.id)).toBeDefined();
      expect(await h().folders.get(b, f!.id)).toBeUndefined();
    });

    it('advances the sync state by compare-and-set: one of ten racing writers wins', async () => {
      const inbox = await seedInbox(h());
      const [f] = await h().folders.replaceAll(inbox, STANDARD.slice(0, 1), newFolderId);
      const next = (n: number) => ({
        uidValidity: '1795315202',
        uidNext: 100 + n,
        highestModseq: '9007199254740993',
        cursor: null,
        windowLow: 1,
        syncedAt: new Date('2030-01-01T00:00:00Z'),
      });
      const wins = await Promise.all(
        Array.from({ length: 10 }, (_, n) => h().folders.advanceSync(f!.id, 0, next(n))),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const after = await h().folders.get(inbox, f!.id);
      expect(after?.sync).toMatchObject({ ...next(wins.indexOf(true)), version: 1 });
      // A stale writer (still at version 0) is refused; the current one advances.
      expect(await h().folders.advanceSync(f!.id, 0, next(50))).toBe(false);
      expect(await h().folders.advanceSync(f!.id, 1, next(51))).toBe(true);
    });

    it('lowers the window whatever the version, never raises it, fails a sync that read the state before, and keeps to one folder identity', async () => {
      const inbox = await seedInbox(h());
      const [f] = await h().folders.replaceAll(inbox, STANDARD.slice(0, 1), newFolderId);
      const state = {
        uidValidity: '7',
        uidNext: 500,
        highestModseq: '12',
        cursor: null,
        windowLow: 300,
        syncedAt: new Date('2030-01-01T00:00:00Z'),
      };
      expect(await h().folders.advanceSync(f!.id, 0, state)).toBe(true);
      await h().folders.lowerWindow(f!.id, '7', 250);
      await h().folders.lowerWindow(f!.id, '7', 280); // an older call's page, finishing late: no raise
      const after = await h().folders.get(inbox, f!.id);
      expect(after?.sync).toMatchObject({ ...state, windowLow: 250, version: 2 });
      // A sync that read version 1 (window 300) cannot write its stale window back.
      expect(await h().folders.advanceSync(f!.id, 1, state)).toBe(false);
      expect((await h().folders.get(inbox, f!.id))?.sync.windowLow).toBe(250);
      // The folder re-read under a new identity since: a page of the old one lowers nothing.
      expect(await h().folders.advanceSync(f!.id, 2, { ...state, uidValidity: '8', windowLow: 40 })).toBe(
        true,
      );
      await h().folders.lowerWindow(f!.id, '7', 10);
      expect((await h().folders.get(inbox, f!.id))?.sync).toMatchObject({ uidValidity: '8', windowLow: 40 });
    });
  });
}
