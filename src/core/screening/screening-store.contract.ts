import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { newFolderId } from '../messages/folder-store.contract.ts';
import { newSummary } from '../messages/message-store.contract.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { ScreeningStore } from './screening-store.ts';

export interface ScreeningStoreHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
  folders: FolderStore;
  messages: MessageStore;
  screenings: ScreeningStore;
}

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

export function screeningStoreContract(h: () => ScreeningStoreHarness): void {
  describe('ScreeningStore contract', () => {
    /** An inbox with INBOX and Screened folders and five messages in INBOX (1 oldest … 5 newest). */
    async function seeded() {
      const accountId = await seedAccount(h().accounts);
      const inbox = newInbox(accountId);
      await h().inboxes.create(inbox);
      const folders = await h().folders.replaceAll(
        inbox.id,
        [
          { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
          { path: 'Screened', name: 'Screened', canonical: 'screened' },
        ],
        newFolderId,
      );
      const box = folders.find((f) => f.canonical === 'inbox')!;
      const screened = folders.find((f) => f.canonical === 'screened')!;
      const msgs = [1, 2, 3, 4, 5].map((n) =>
        newSummary(inbox.id, box.id, n, {
          date: t(n),
          from: { address: `s${String(n)}@spam.test`, name: '' },
          starred: n === 2,
          labels: n === 3 ? ['Work'] : [],
        }),
      );
      await h().messages.upsertMany(msgs);
      const item = (n: number) => ({
        accountId,
        inboxId: inbox.id,
        messageId: msgs[n - 1]!.id,
        senderAddress: msgs[n - 1]!.from.address,
      });
      return { accountId, inbox, box, screened, msgs, item };
    }

    it('unscreened: newest first, without starred or labelled mail or mail with a verdict', async () => {
      const s = await seeded();
      const ids = async () =>
        (await h().screenings.unscreened(s.inbox.id, s.box.id, { limit: 10, offset: 0 })).map((m) => m.id);
      expect(await ids()).toEqual([s.msgs[4]!.id, s.msgs[3]!.id, s.msgs[0]!.id]);
      await h().screenings.offer([s.item(5)], t(10), t(70));
      expect(await ids()).toHaveLength(3); // handed out, not judged: still unscreened
      expect(
        await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[4]!.id, 'fine', null, t(20)),
      ).toBeDefined();
      expect(await ids()).toEqual([s.msgs[3]!.id, s.msgs[0]!.id]);
      expect(
        (await h().screenings.unscreened(s.inbox.id, s.box.id, { limit: 1, offset: 1 })).map((m) => m.id),
      ).toEqual([s.msgs[0]!.id]);
    });

    it('recordExempt: settled fine, no longer unscreened; an offered row is settled, a verdict kept', async () => {
      const s = await seeded();
      const unscreened = async () =>
        (await h().screenings.unscreened(s.inbox.id, s.box.id, { limit: 10, offset: 0 })).map((m) => m.id);
      const before = await unscreened();
      await h().screenings.offer([s.item(4)], t(10), t(70));
      await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[0]!.id, 'fine', null, t(1));
      await h().screenings.offer([s.item(1)], t(10), t(70));
      const judged = await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[0]!.id, 'junk', 'r', t(11));
      await h().screenings.recordExempt([s.item(1), s.item(4), s.item(5)], t(20));
      expect(await unscreened()).toEqual(
        before.filter((id) => ![s.msgs[0]!.id, s.msgs[3]!.id, s.msgs[4]!.id].includes(id)),
      );
      // The offered row was settled (no longer decidable); the judged one kept its verdict.
      expect(
        await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[3]!.id, 'junk', null, t(21)),
      ).toBeUndefined();
      expect(await h().screenings.get(s.accountId, s.inbox.id, judged!.id)).toMatchObject({
        verdict: 'junk',
        source: 'agent',
      });
    });

    it('decide: only what was handed out to this account, unexpired, once — of racing confirms one wins', async () => {
      const s = await seeded();
      const other = await seedAccount(h().accounts);
      const id = s.msgs[0]!.id;
      expect(await h().screenings.decide(s.accountId, s.inbox.id, id, 'junk', null, t(1))).toBeUndefined();
      await h().screenings.offer([s.item(1)], t(10), t(70));
      expect(await h().screenings.decide(other, s.inbox.id, id, 'junk', null, t(11))).toBeUndefined();
      expect(await h().screenings.decide(s.accountId, s.inbox.id, id, 'junk', null, t(70))).toBeUndefined();
      const racing = await Promise.all(
        Array.from({ length: 8 }, () =>
          h().screenings.decide(s.accountId, s.inbox.id, id, 'junk', 'why', t(30)),
        ),
      );
      const won = racing.filter((r) => r !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ verdict: 'junk', reason: 'why', source: 'agent', decidedAt: t(30) });
      // A fresh offer does not reopen a judged message; undecide does.
      await h().screenings.offer([s.item(1)], t(40), t(100));
      expect(await h().screenings.decide(s.accountId, s.inbox.id, id, 'fine', null, t(41))).toBeUndefined();
      await h().screenings.undecide(won[0]!.id);
      expect(await h().screenings.decide(s.accountId, s.inbox.id, id, 'fine', null, t(42))).toMatchObject({
        verdict: 'fine',
      });
      expect(await h().screenings.get(other, s.inbox.id, won[0]!.id)).toBeUndefined();
      expect(await h().screenings.get(s.accountId, s.inbox.id, won[0]!.id)).toMatchObject({
        verdict: 'fine',
      });
    });

    it('screened and digest: junk whose message sits in Screened, in the window, paged; blocklist rows counted', async () => {
      const s = await seeded();
      await h().screenings.offer([s.item(1), s.item(4), s.item(5)], t(10), t(70));
      const a = (await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[0]!.id, 'junk', 'r1', t(11)))!;
      const b = (await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[3]!.id, 'junk', 'r4', t(12)))!;
      await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[4]!.id, 'unsure', null, t(13));
      const [blocked] = await h().screenings.recordBlocked(
        [{ ...s.item(2), reason: 'blockedDomains: spam.test' }],
        t(14),
      );
      expect(blocked).toMatchObject({ source: 'blocklist', verdict: 'junk' });
      // A message with a verdict is not recorded again by the blocklist.
      expect(await h().screenings.recordBlocked([{ ...s.item(1), reason: 'x' }], t(15))).toEqual([]);
      // Only a4 and a2 moved; a1 is junk but still in INBOX (its move failed or was undone).
      await h().messages.relocate(s.inbox.id, s.msgs[3]!.id, s.screened.id, '104', 104);
      await h().messages.relocate(s.inbox.id, s.msgs[1]!.id, s.screened.id, '102', 102);
      await h().screenings.setUndo([b.id], 'undo_x');
      const page = await h().screenings.screened([s.inbox.id], t(0), { limit: 1, offset: 0 });
      expect(page.total).toBe(2);
      expect(page.rows).toEqual([
        expect.objectContaining({
          id: blocked!.id,
          source: 'blocklist',
          reason: 'blockedDomains: spam.test',
        }),
      ]);
      const rest = await h().screenings.screened([s.inbox.id], t(0), { limit: 5, offset: 1 });
      expect(rest.rows).toEqual([
        expect.objectContaining({ id: b.id, messageId: s.msgs[3]!.id, undoId: 'undo_x', screenedAt: t(12) }),
      ]);
      expect((await h().screenings.screened([s.inbox.id], t(13), { limit: 5, offset: 0 })).total).toBe(1);
      expect((await h().screenings.screened([], t(0), { limit: 5, offset: 0 })).total).toBe(0);
      await h().screenings.resolve(a.id, 'rescued', t(20));
      expect(await h().screenings.digest([s.inbox.id], t(0))).toEqual({
        waiting: 2,
        senders: 2,
        topSenders: [
          { address: 's2@spam.test', messages: 1 },
          { address: 's4@spam.test', messages: 1 },
        ],
        fromBlocklist: 1,
        rescued: 1,
        reported: 0,
      });
    });

    it('forgets in a sweep the rows of messages the index no longer holds, once their last event is old enough', async () => {
      const s = await seeded();
      await h().screenings.offer([s.item(1), s.item(4), s.item(5)], t(10), t(70));
      await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[0]!.id, 'junk', 'r1', t(11));
      const kept = (await h().screenings.decide(
        s.accountId,
        s.inbox.id,
        s.msgs[3]!.id,
        'junk',
        'r4',
        t(12),
      ))!;
      // Messages 1 and 4 leave the mailbox; 5 stays. Message 4's row was resolved later.
      await h().messages.removeByRefs(s.box.id, [s.msgs[0]!.providerRef, s.msgs[3]!.providerRef]);
      await h().screenings.resolve(kept.id, 'reported', t(30));
      expect(await h().screenings.deleteForgotten(t(20))).toBe(1); // message 1's: gone, last event at t(11)
      expect(await h().screenings.deleteForgotten(t(20))).toBe(0);
      // The row of a message still held stays, however old.
      expect(await h().screenings.deleteForgotten(t(1000))).toBe(1); // message 4's
      expect(
        await h().screenings.decide(s.accountId, s.inbox.id, s.msgs[4]!.id, 'fine', null, t(40)),
      ).toBeDefined();
      expect(await h().screenings.deleteForgotten(t(1000))).toBe(0);
    });
  });
}
