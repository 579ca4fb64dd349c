import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { UndoRecord, UndoStore } from './undo-store.ts';

const t = (h: number) => new Date(Date.UTC(2030, 0, 1, h));

export function undoStoreContract(
  h: () => { accounts: AccountStore; undo: UndoStore; audit: AuditLog },
): void {
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

    it('removes expired handles in a sweep, and only those', async () => {
      const acct = await seedAccount(h().accounts);
      const old = { ...record(acct), expiresAt: t(5) };
      const live = record(acct);
      await h().undo.save(old);
      await h().undo.save(live);
      await h().undo.deleteExpired(t(5));
      expect(await h().undo.describe(acct, old.id)).toBeUndefined();
      expect(await h().undo.describe(acct, live.id)).toMatchObject({ id: live.id });
    });

    it('written ahead of its change, is settled to the changes made, or removed when none was', async () => {
      const acct = await seedAccount(h().accounts);
      const r = record(acct);
      const second = { ...r.entries[0]!, messageId: 'msg_y' };
      await h().undo.save({ ...r, entries: [...r.entries, second] });
      await h().undo.settle(acct, r.id, [second]);
      expect(await h().undo.find(acct, r.id, t(1))).toEqual({ ...r, entries: [second] });
      await h().undo.settle(acct, r.id, []);
      expect(await h().undo.describe(acct, r.id)).toBeUndefined();
    });

    it('lists the live, unused handles no audit entry names, written before the given time', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const lost = record(acct);
      const reported = record(acct);
      const used = record(acct);
      const recent = { ...record(acct), createdAt: t(3) };
      for (const r of [lost, reported, used, recent, record(other)]) await h().undo.save(r);
      await h().undo.consume(acct, used.id, t(1));
      await h().audit.record({
        at: t(0),
        accountId: acct,
        credentialKind: 'api_key',
        credentialId: 'key_x',
        clientId: null,
        tool: 'act_on_messages',
        inboxId: 'inbox_x',
        outcome: 'ok',
        undoId: reported.id,
        durationMs: 1,
      });
      expect(await h().undo.interrupted(acct, t(4), t(2))).toEqual([lost]);
      // Expired handles are not offered.
      expect(await h().undo.interrupted(acct, t(168), t(2))).toEqual([]);
    });
  });
}
