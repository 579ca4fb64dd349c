import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount } from '../inboxes/inbox-store.contract.ts';
import { seedInbox } from '../messages/folder-store.contract.ts';
import type { ChangeCounter } from './change-counter.ts';

export function changeCounterContract(
  h: () => { accounts: AccountStore; inboxes: InboxStore; changeCounts: ChangeCounter },
): void {
  describe('ChangeCounter contract', () => {
    it('starts at 0 and counts every change of each inbox on its own', async () => {
      const [a, b] = [await seedInbox(h()), await seedInbox(h())];
      expect(await h().changeCounts.read(a)).toBe(0);
      await h().changeCounts.bump([a]);
      await h().changeCounts.bump([a, b]);
      expect(await h().changeCounts.read(a)).toBe(2);
      expect(await h().changeCounts.read(b)).toBe(1);
    });

    it('loses no change when many are counted at once', async () => {
      const inbox = await seedInbox(h());
      await Promise.all(Array.from({ length: 20 }, () => h().changeCounts.bump([inbox])));
      expect(await h().changeCounts.read(inbox)).toBe(20);
    });

    it('counts nothing for an empty list, and an inbox deleted takes its count with it', async () => {
      const inbox = newInbox(await seedAccount(h().accounts));
      await h().inboxes.create(inbox);
      await h().changeCounts.bump([]);
      await h().changeCounts.bump([inbox.id]);
      expect(await h().changeCounts.read(inbox.id)).toBe(1);
      expect(await h().inboxes.delete(inbox.accountId, inbox.id)).toBe(true);
      expect(await h().changeCounts.read(inbox.id)).toBe(0);
    });
  });
}
