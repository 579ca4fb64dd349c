import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import { seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { AuditEntry, AuditLog } from './audit-log.ts';

export function auditLogContract(h: () => { accounts: AccountStore; audit: AuditLog }): void {
  describe('AuditLog contract', () => {
    it('records entries and lists an account’s newest first, nobody else’s', async () => {
      const a = await seedAccount(h().accounts);
      const b = await seedAccount(h().accounts);
      const entry = (n: number, accountId = a): AuditEntry => ({
        at: new Date(Date.UTC(2030, 0, 1, 0, n)),
        accountId,
        credentialKind: 'api_key',
        credentialId: 'key_x',
        clientId: null,
        tool: `tool_${String(n)}`,
        inboxId: n % 2 === 0 ? 'inbox_aaaaaaaaaaaaaaaaaaaa' : null,
        outcome: n === 3 ? 'lease_held' : 'ok',
        undoId: n === 2 ? 'undo_1' : null,
        durationMs: n,
      });
      for (const n of [1, 2, 3]) await h().audit.record(entry(n));
      await h().audit.record(entry(9, b));
      const recent = await h().audit.recent(a, 2);
      expect(recent).toEqual([entry(3), entry(2)]);
      expect(await h().audit.recent(b, 10)).toEqual([entry(9, b)]);
      // Pages, narrowed by inbox, credential and tool; never another account's.
      expect(await h().audit.page(a, { limit: 2, offset: 1 })).toEqual({
        entries: [entry(2), entry(1)],
        total: 3,
      });
      expect(
        await h().audit.page(a, { inboxId: 'inbox_aaaaaaaaaaaaaaaaaaaa', limit: 10, offset: 0 }),
      ).toEqual({
        entries: [entry(2)],
        total: 1,
      });
      expect(await h().audit.page(a, { tool: 'tool_3', limit: 10, offset: 0 })).toEqual({
        entries: [entry(3)],
        total: 1,
      });
      expect((await h().audit.page(a, { credentialId: 'key_other', limit: 10, offset: 0 })).total).toBe(0);
      expect((await h().audit.page(b, { tool: 'tool_3', limit: 10, offset: 0 })).total).toBe(0);
    });

    it('removes in a sweep the entries of every account recorded before a time, and only those', async () => {
      const a = await seedAccount(h().accounts);
      const b = await seedAccount(h().accounts);
      const at = (day: number) => new Date(Date.UTC(2031, 0, day));
      const entry = (accountId: typeof a, day: number, n = 0): AuditEntry => ({
        at: at(day),
        accountId,
        credentialKind: 'api_key',
        credentialId: 'key_x',
        clientId: null,
        tool: `tool_${String(n)}`,
        inboxId: null,
        outcome: 'ok',
        undoId: null,
        durationMs: 1,
      });
      await h().audit.deleteBefore(at(1)); // what the tests before this one left
      // More old rows of one account than one statement of the sweep removes.
      await Promise.all(Array.from({ length: 6_000 }, (_, n) => h().audit.record(entry(a, 1, n))));
      await h().audit.record(entry(a, 3));
      await h().audit.record(entry(b, 1));
      await h().audit.record(entry(b, 2));
      expect(await h().audit.deleteBefore(at(2))).toBe(6_001);
      expect((await h().audit.recent(a, 10)).map((e) => e.at)).toEqual([at(3)]);
      expect((await h().audit.recent(b, 10)).map((e) => e.at)).toEqual([at(2)]);
      expect(await h().audit.deleteBefore(at(2))).toBe(0);
    });
  });
}
