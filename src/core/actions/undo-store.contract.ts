import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { UndoRecord, UndoStore } from './undo-store.ts';

const t = (h: number) => new Date(Date.UTC(2030, 0, 1, h));

export function undoStoreContract(h: () => { accounts: AccountStore; undo: UndoStore }): void {
  describe('UndoStore contract', () => {
    const record = (accountId: UndoRecord['accountId']): UndoRecord => ({
      id: newId('undo'),
      accountId,
      action: 'trash',
      entries: [
        {
          inboxId: 'inbox_x',
          messageId: 'msg_x',
          fromFolderId: 'fld_a',
          toFolderId: 'fld_b',
          before: { unread: true, starred: false, labels: ['L'] },
        },
      ],
      createdAt: t(0),
      expiresAt: t(168),
    });

    it('is consumed exactly once, even by racing callers', async () => {
      const acct = await seedAccount(h().accounts);
      const r = record(acct);
      await h().undo.save(r);
      const taken = await Promise.all(Array.from({ length: 8 }, () => h().undo.consume(acct, r.id, t(1))));
      expect(taken.filter((x) => x !== undefined)).toEqual([r]);
    });

    it('belongs to its account and expires', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const r = record(acct);
      await h().undo.save(r);
      expect(await h().undo.consume(other, r.id, t(1))).toBeUndefined();
      expect(await h().undo.consume(acct, r.id, t(168))).toBeUndefined();
    });

    it('can be looked at without being taken; a used or expired one is not found', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const r = record(acct);
      await h().undo.save(r);
      expect(await h().undo.find(acct, r.id, t(1))).toEqual(r);
      expect(await h().undo.find(other, r.id, t(1))).toBeUndefined();
      expect(await h().undo.find(acct, r.id, t(168))).toBeUndefined();
      expect(await h().undo.consume(acct, r.id, t(1))).toEqual(r);
      expect(await h().undo.find(acct, r.id, t(1))).toBeUndefined();
      expect(await h().undo.consume(acct, r.id, t(2))).toBeUndefined();
      // Described whatever its state, to its own account only.
      expect(await h().undo.describe(acct, r.id)).toEqual({ ...r, usedAt: expect.any(Date) as Date });
      expect(await h().undo.describe(other, r.id)).toBeUndefined();
    });
  });
}
