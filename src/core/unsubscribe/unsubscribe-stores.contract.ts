import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountId } from '../accounts/account.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { InboxGoneError } from '../inboxes/inbox-errors.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount, seedRemovedInbox } from '../inboxes/inbox-store.contract.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { newFolderId } from '../messages/folder-store.contract.ts';
import { newSummary } from '../messages/message-store.contract.ts';
import type { MessageId } from '../messages/message.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { MailingListIndex } from './mailing-list-index.ts';
import type { PendingUnsubscribe } from './pending-unsubscribe.ts';
import type { PendingUnsubscribeStore } from './pending-unsubscribe-store.ts';

export interface UnsubscribeStoresHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
  folders: FolderStore;
  messages: MessageStore;
  pendingUnsubscribes: PendingUnsubscribeStore;
  mailingLists: MailingListIndex;
}

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

async function seedPending(
  h: UnsubscribeStoresHarness,
  o: Partial<PendingUnsubscribe> & { accountId?: AccountId; inboxId?: InboxId } = {},
): Promise<PendingUnsubscribe> {
  const accountId = o.accountId ?? (await seedAccount(h.accounts));
  let inboxId = o.inboxId;
  if (inboxId === undefined) {
    const inbox = newInbox(accountId);
    await h.inboxes.create(inbox);
    inboxId = inbox.id;
  }
  const p: PendingUnsubscribe = {
    id: newId('pu'),
    accountId,
    inboxId,
    messageId: newId('msg') as MessageId,
    senderKey: 'news.example.test',
    senderAddress: 'news@example.test',
    url: 'https://example.test/u/1',
    codeHash: 'h'.repeat(64),
    attempts: 0,
    status: 'pending',
    createdAt: t(0),
    expiresAt: t(60),
    claimedAt: null,
    finishedAt: null,
    httpStatus: null,
    error: null,
    requestedBy: { kind: 'access_token', id: 'tok_x', clientId: 'itc_x' },
    ...o,
  };
  await h.pendingUnsubscribes.create(p);
  return p;
}

export function pendingUnsubscribeStoreContract(h: () => UnsubscribeStoresHarness): void {
  describe('PendingUnsubscribeStore contract', () => {
    it('round-trips every field and is scoped by account', async () => {
      const p = await seedPending(h());
      expect(await h().pendingUnsubscribes.get(p.accountId, p.id)).toEqual(p);
      const other = await seedAccount(h().accounts);
      expect(await h().pendingUnsubscribes.get(other, p.id)).toBeUndefined();
    });

    // Found by the HTTP fuzz (seed 444215): propose_unsubscribe racing the inbox's removal ended in the database's
    // foreign-key error, an internal_error with a stack in the log. The store now says what happened.
    it('refuses an approval for an inbox removed meanwhile with InboxGoneError', async () => {
      await expect(seedPending(h(), await seedRemovedInbox(h()))).rejects.toBeInstanceOf(InboxGoneError);
    });

    it('counts wrong codes and locks a pending approval at the limit', async () => {
      const p = await seedPending(h());
      for (let i = 1; i <= 4; i++) expect(await h().pendingUnsubscribes.recordFailure(p.id, 5)).toBe(i);
      expect((await h().pendingUnsubscribes.get(p.accountId, p.id))?.status).toBe('pending');
      expect(await h().pendingUnsubscribes.recordFailure(p.id, 5)).toBe(5);
      expect((await h().pendingUnsubscribes.get(p.accountId, p.id))?.status).toBe('locked');
      expect(await h().pendingUnsubscribes.claim(p.id, t(1))).toBe(false);
    });

    it('of 50 racing claims exactly one wins; an expired approval is never claimed', async () => {
      const p = await seedPending(h());
      const wins = await Promise.all(
        Array.from({ length: 50 }, () => h().pendingUnsubscribes.claim(p.id, t(1))),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await h().pendingUnsubscribes.get(p.accountId, p.id)).toMatchObject({
        status: 'posting',
        claimedAt: t(1),
      });
      const old = await seedPending(h());
      expect(await h().pendingUnsubscribes.claim(old.id, t(60))).toBe(false);
    });

    it('finishes only a claimed approval, recording what the server answered', async () => {
      const p = await seedPending(h());
      await h().pendingUnsubscribes.finish(p.id, 'done', t(2), { httpStatus: 200, error: null });
      expect((await h().pendingUnsubscribes.get(p.accountId, p.id))?.status).toBe('pending');
      await h().pendingUnsubscribes.claim(p.id, t(1));
      await h().pendingUnsubscribes.finish(p.id, 'rejected', t(2), { httpStatus: 404, error: null });
      expect(await h().pendingUnsubscribes.get(p.accountId, p.id)).toMatchObject({
        status: 'rejected',
        finishedAt: t(2),
        httpStatus: 404,
      });
    });

    it('lists requests claimed before a moment and never finished, oldest first', async () => {
      const early = await seedPending(h());
      const later = await seedPending(h());
      const recent = await seedPending(h());
      const finished = await seedPending(h());
      const waiting = await seedPending(h());
      await h().pendingUnsubscribes.claim(later.id, t(3));
      await h().pendingUnsubscribes.claim(early.id, t(2));
      await h().pendingUnsubscribes.claim(recent.id, t(9));
      await h().pendingUnsubscribes.claim(finished.id, t(1));
      await h().pendingUnsubscribes.finish(finished.id, 'done', t(2), { httpStatus: 200, error: null });
      const ours = new Set([early.id, later.id, recent.id, finished.id, waiting.id]);
      const stranded = (await h().pendingUnsubscribes.stranded(t(5))).filter((p) => ours.has(p.id));
      expect(stranded.map((p) => p.id)).toEqual([early.id, later.id]);
      expect(stranded[0]).toMatchObject({ status: 'posting', claimedAt: t(2) });
    });

    it('lists what waits for the account, newest first; discard takes a pending approval once', async () => {
      const a = await seedPending(h(), { createdAt: t(1) });
      const b = await seedPending(h(), { accountId: a.accountId, inboxId: a.inboxId, createdAt: t(2) });
      await seedPending(h(), {
        accountId: a.accountId,
        inboxId: a.inboxId,
        createdAt: t(3),
        expiresAt: t(4),
      });
      const list = await h().pendingUnsubscribes.waiting(a.accountId, t(10), 10);
      expect(list.map((p) => p.id)).toEqual([b.id, a.id]);
      expect(list[0]?.requestedBy).toEqual({ kind: 'access_token', id: 'tok_x', clientId: 'itc_x' });
      const stranger = await seedAccount(h().accounts);
      expect(await h().pendingUnsubscribes.discard(stranger, a.id)).toBe(false);
      const racing = await Promise.all(
        Array.from({ length: 5 }, () => h().pendingUnsubscribes.discard(a.accountId, a.id)),
      );
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect(await h().pendingUnsubscribes.claim(a.id, t(10))).toBe(false);
      expect((await h().pendingUnsubscribes.waiting(a.accountId, t(10), 10)).map((p) => p.id)).toEqual([
        b.id,
      ]);
    });

    it('a newer approval for a sender ends the ones waiting before it, and nothing else', async () => {
      const first = await seedPending(h(), { createdAt: t(1) });
      const place = { accountId: first.accountId, inboxId: first.inboxId };
      const sameTime = await seedPending(h(), { ...place, createdAt: t(2) });
      const claimed = await seedPending(h(), { ...place, createdAt: t(1) });
      expect(await h().pendingUnsubscribes.claim(claimed.id, t(3))).toBe(true);
      const otherSender = await seedPending(h(), { ...place, createdAt: t(1), senderKey: 'other.example.test' });
      const otherInbox = await seedPending(h(), { accountId: first.accountId, createdAt: t(1) });
      const newer = await seedPending(h(), { ...place, createdAt: t(2) });
      const later = await seedPending(h(), { ...place, createdAt: t(5) });
      expect(await h().pendingUnsubscribes.expireEarlier(newer, t(4))).toBe(2); // first, sameTime
      const waiting = (await h().pendingUnsubscribes.waiting(first.accountId, t(4), 20)).map((p) => p.id);
      expect(waiting.sort()).toEqual([otherSender.id, otherInbox.id, newer.id, later.id].sort());
      // Ended as if expired: its code no longer claims; the one in flight goes on.
      expect(await h().pendingUnsubscribes.claim(first.id, t(4))).toBe(false);
      expect((await h().pendingUnsubscribes.get(first.accountId, sameTime.id))?.expiresAt).toEqual(t(4));
      expect((await h().pendingUnsubscribes.get(first.accountId, claimed.id))?.status).toBe('posting');
    });

    it('results: the latest finished request per sender, only for the account and inboxes asked', async () => {
      const first = await seedPending(h());
      const { accountId, inboxId } = first;
      await h().pendingUnsubscribes.claim(first.id, t(1));
      await h().pendingUnsubscribes.finish(first.id, 'rejected', t(2), { httpStatus: 500, error: null });
      const second = await seedPending(h(), { accountId, inboxId });
      await h().pendingUnsubscribes.claim(second.id, t(3));
      await h().pendingUnsubscribes.finish(second.id, 'done', t(4), { httpStatus: 202, error: null });
      await seedPending(h(), { accountId, inboxId, senderKey: 'other.example.test' }); // never finished
      expect(await h().pendingUnsubscribes.results(accountId, [inboxId])).toEqual([
        { inboxId, senderKey: 'news.example.test', status: 'done', finishedAt: t(4) },
      ]);
      const stranger = await seedAccount(h().accounts);
      expect(await h().pendingUnsubscribes.results(stranger, [inboxId])).toEqual([]);
      expect(await h().pendingUnsubscribes.results(accountId, [])).toEqual([]);
    });

    // Decision 0123: requests were kept for good, whatever became of them; each sender's last result is still read.
    it('the sweep removes requests whose time was over, keeping each sender’s latest finished one', async () => {
      // Earlier than any other test's requests, so the count is this test's alone.
      const long = (month: number, day = 1) => new Date(Date.UTC(2001, month, day));
      const first = await seedPending(h(), { createdAt: long(0), expiresAt: long(1) });
      const { accountId, inboxId } = first;
      const request = (o: Partial<PendingUnsubscribe>) =>
        seedPending(h(), { accountId, inboxId, createdAt: long(0), expiresAt: long(1), ...o });
      const finished = (status: PendingUnsubscribe['status'], at: Date, senderKey = 'news.example.test') =>
        request({ status, senderKey, claimedAt: long(0), finishedAt: at, httpStatus: 200 });
      // Two results at the same moment: the one with the greater id is the latest, as `results` reads them.
      const [tied, latest] = [
        await finished('rejected', long(0, 3)),
        await finished('done', long(0, 3)),
      ].sort((a, b) => (a.id < b.id ? -1 : 1)) as [PendingUnsubscribe, PendingUnsubscribe];
      const removed = [
        first, // never used
        await request({ status: 'discarded' }),
        await request({ status: 'locked', attempts: 5 }),
        await finished('done', long(0, 2)), // followed by a later result for the sender
        tied,
      ];
      const kept = [
        latest,
        await finished('unknown', long(0, 2), 'other.example.test'), // that sender's only result
        await request({ status: 'posting', claimedAt: long(0) }), // the stranded sweep's
        await request({ expiresAt: long(5) }), // still waiting then
      ];
      expect(await h().pendingUnsubscribes.deleteEnded(long(2))).toBe(removed.length);
      for (const p of removed) expect(await h().pendingUnsubscribes.get(accountId, p.id)).toBeUndefined();
      for (const p of kept) expect(await h().pendingUnsubscribes.get(accountId, p.id)).toEqual(p);
      const results = await h().pendingUnsubscribes.results(accountId, [inboxId]);
      expect(results.sort((a, b) => a.senderKey.localeCompare(b.senderKey))).toEqual([
        { inboxId, senderKey: 'news.example.test', status: latest.status, finishedAt: long(0, 3) },
        { inboxId, senderKey: 'other.example.test', status: 'unknown', finishedAt: long(0, 2) },
      ]);
    });
  });
}

export function mailingListIndexContract(h: () => UnsubscribeStoresHarness): void {
  describe('MailingListIndex contract', () => {
    async function inboxWithMail() {
      const accountId = await seedAccount(h().accounts);
      const inbox = newInbox(accountId);
      await h().inboxes.create(inbox);
      const [folder] = await h().folders.replaceAll(
        inbox.id,
        [{ path: 'INBOX', name: 'Inbox', canonical: 'inbox' }],
        newFolderId,
      );
      if (folder === undefined) throw new Error('no folder');
      const list = {
        listId: 'weekly.news.test',
        listUnsubscribe: '<https://news.test/u>',
        listUnsubscribePost: true,
      };
      const msgs = [
        newSummary(inbox.id, folder.id, 1, {
          ...list,
          date: t(1),
          from: { address: 'a@news.test', name: 'News A' },
          unread: true,
        }),
        newSummary(inbox.id, folder.id, 2, {
          ...list,
          date: t(2),
          from: { address: 'b@news.test', name: 'News B' },
          unread: false,
        }),
        // No List-Id: grouped by address. Only a mailto link: not one-click.
        newSummary(inbox.id, folder.id, 3, {
          date: t(3),
          listUnsubscribe: '<mailto:u@shop.test>',
          from: { address: 'deals@shop.test', name: 'Shop' },
        }),
        newSummary(inbox.id, folder.id, 4, { from: { address: 'friend@people.test', name: 'Friend' } }),
      ];
      await h().messages.upsertMany(msgs);
      return { inbox, msgs };
    }

    it('groups list mail per sender, newest first, with counts and the latest message', async () => {
      const { inbox, msgs } = await inboxWithMail();
      const { rows, total } = await h().mailingLists.senders([inbox.id], { limit: 10, offset: 0 });
      expect(total).toBe(2);
      expect(rows.map((r) => r.senderKey)).toEqual(['deals@shop.test', 'weekly.news.test']);
      const weekly = rows.find((r) => r.senderKey === 'weekly.news.test');
      expect(weekly).toMatchObject({
        inboxId: inbox.id,
        listId: 'weekly.news.test',
        address: 'b@news.test',
        name: 'News B',
        messages: 2,
        unread: 1,
        oneClickAdvertised: true,
        latestMessageId: msgs[1]?.id,
      });
      expect(rows.find((r) => r.senderKey === 'deals@shop.test')?.oneClickAdvertised).toBe(false);
    });

    it('pages without skipping or repeating, and sees only the inboxes asked', async () => {
      const { inbox } = await inboxWithMail();
      const first = await h().mailingLists.senders([inbox.id], { limit: 1, offset: 0 });
      const second = await h().mailingLists.senders([inbox.id], { limit: 1, offset: 1 });
      expect([...first.rows, ...second.rows].map((r) => r.senderKey).sort()).toEqual([
        'deals@shop.test',
        'weekly.news.test',
      ]);
      const other = await inboxWithMail();
      const mine = await h().mailingLists.senders([inbox.id], { limit: 10, offset: 0 });
      expect(mine.rows.every((r) => r.inboxId === inbox.id)).toBe(true);
      expect(
        (await h().mailingLists.senders([inbox.id, other.inbox.id], { limit: 10, offset: 0 })).total,
      ).toBe(4);
      expect(await h().mailingLists.senders([], { limit: 10, offset: 0 })).toEqual({ rows: [], total: 0 });
    });
  });
}
