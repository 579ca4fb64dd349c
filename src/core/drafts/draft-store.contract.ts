import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import { InboxGoneError } from '../inboxes/inbox-errors.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount, seedRemovedInbox } from '../inboxes/inbox-store.contract.ts';
import type { Draft, PendingSend } from './draft.ts';
import type { CardCode, CardCodeStore } from './draft-cards.ts';
import type { DraftStore, PendingSendStore } from './draft-store.ts';

export interface DraftStoreHarness {
  accounts: AccountStore;
  inboxes: InboxStore;
  drafts: DraftStore;
}

export interface PendingSendStoreHarness extends DraftStoreHarness {
  pendingSends: PendingSendStore;
}

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

async function seedDraft(h: DraftStoreHarness, o: Partial<Draft> = {}): Promise<Draft> {
  const accountId = await seedAccount(h.accounts);
  const inbox = newInbox(accountId);
  await h.inboxes.create(inbox);
  const d: Draft = {
    id: newId('draft'),
    accountId,
    inboxId: inbox.id,
    to: 'Zoë <zoe@example.test>, bob@example.test',
    subject: 'Re: Réunion — 日本語',
    body: 'Line one\nLine two 🎉',
    threadId: 'thr_1',
    inReplyTo: '<parent@example.test>',
    references: ['<root@example.test>', '<parent@example.test>'],
    internetMessageId: `<${newId('m')}@example.test>`,
    folderPath: null,
    providerDraftId: null,
    version: 1,
    status: 'draft',
    createdAt: t(0),
    updatedAt: t(0),
    ...o,
  };
  await h.drafts.create(d);
  return d;
}

export function draftStoreContract(h: () => DraftStoreHarness): void {
  describe('DraftStore contract', () => {
    it('round-trips every field, references in order', async () => {
      const d = await seedDraft(h());
      expect(await h().drafts.get(d.accountId, d.id)).toEqual(d);
      const bare = await seedDraft(h(), { threadId: null, inReplyTo: null, references: [] });
      expect(await h().drafts.get(bare.accountId, bare.id)).toEqual(bare);
    });

    it('refuses a draft for an inbox removed meanwhile with InboxGoneError', async () => {
      await expect(seedDraft(h(), await seedRemovedInbox(h()))).rejects.toBeInstanceOf(InboxGoneError);
    });

    it('is scoped by account: another account’s id is not found', async () => {
      const d = await seedDraft(h());
      const other = await seedAccount(h().accounts);
      expect(await h().drafts.get(other, d.id)).toBeUndefined();
      expect(await h().drafts.get(d.accountId, 'draft_missing')).toBeUndefined();
    });

    it('reads several at once, scoped by account, leaving out ids it does not find', async () => {
      const a = await seedDraft(h());
      const b = await seedDraft(h(), { accountId: a.accountId, inboxId: a.inboxId });
      const other = await seedDraft(h());
      const got = await h().drafts.getMany(a.accountId, [b.id, a.id, other.id, 'draft_missing', a.id]);
      expect(got.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
      expect(got.find((d) => d.id === a.id)).toEqual(a);
      expect(await h().drafts.getMany(a.accountId, [])).toEqual([]);
    });

    it('records where the mailbox copy was placed', async () => {
      const d = await seedDraft(h());
      await h().drafts.placed(d.id, 'Drafts', '42', t(1));
      expect(await h().drafts.get(d.accountId, d.id)).toMatchObject({
        folderPath: 'Drafts',
        providerDraftId: '42',
        version: 1,
      });
    });

    it('marks a copy being written: a new draft until placed, an edit from beginCopy until placed', async () => {
      const pendingSince = async (before: Date, ids: readonly string[]) =>
        (await h().drafts.pendingCopies(before, 1000)).filter((d) => ids.includes(d.id)).map((d) => d.id);
      const older = await seedDraft(h(), { createdAt: t(1), updatedAt: t(1) });
      const old = await seedDraft(h(), { createdAt: t(2), updatedAt: t(2) });
      const recent = await seedDraft(h(), { createdAt: t(9), updatedAt: t(9) });
      const placed = await seedDraft(h(), { createdAt: t(1), updatedAt: t(1) });
      await h().drafts.placed(placed.id, 'Drafts', null, t(2)); // placed without a UID is placed all the same
      const discarded = await seedDraft(h(), { createdAt: t(1), updatedAt: t(1) });
      await h().drafts.setStatus(discarded.id, 'discarded', t(2));
      const written = await seedDraft(h(), { folderPath: 'Drafts', providerDraftId: '7', createdAt: t(1) });
      const ids = [older.id, old.id, recent.id, placed.id, discarded.id, written.id];
      expect(await pendingSince(t(5), ids)).toEqual([older.id, old.id]); // oldest first
      expect(await h().drafts.get(older.accountId, older.id)).toEqual(older); // the mark is not part of a draft

      // An edit marks its copy, for the draft's own account and version only, while it is a draft.
      expect(await h().drafts.beginCopy(placed.accountId, placed.id, 2, t(3))).toBe(false);
      expect(await h().drafts.beginCopy(older.accountId, placed.id, 1, t(3))).toBe(false);
      expect(await h().drafts.beginCopy(discarded.accountId, discarded.id, 1, t(3))).toBe(false);
      expect(await h().drafts.beginCopy(placed.accountId, placed.id, 1, t(3))).toBe(true);
      expect(await pendingSince(t(4), ids)).toEqual([older.id, old.id, placed.id]);
      await h().drafts.placed(placed.id, 'Drafts', '43', t(4));
      expect(await pendingSince(t(9), ids)).toEqual([older.id, old.id]);
      expect((await h().drafts.pendingCopies(t(5), 1)).length).toBe(1);
    });

    it('of concurrent sweeps exactly one claims a draft whose copy was left half-written', async () => {
      const d = await seedDraft(h(), { createdAt: t(1), updatedAt: t(1) });
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => h().drafts.claimPendingCopy(d.id, t(5), t(20))),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Claimed, its mark is renewed: the next sweep leaves it until it is old again.
      expect((await h().drafts.pendingCopies(t(5), 1000)).map((x) => x.id)).not.toContain(d.id);
      expect((await h().drafts.pendingCopies(t(21), 1000)).map((x) => x.id)).toContain(d.id);
      expect(await h().drafts.claimPendingCopy(d.id, t(5), t(30))).toBe(false);
      // The claimer records the copy only if no edit marked it since its claim.
      expect(await h().drafts.beginCopy(d.accountId, d.id, 1, t(25))).toBe(true);
      expect(await h().drafts.placedByClaim(d.id, t(20), 'Drafts', '9', t(26))).toBe(false);
      expect((await h().drafts.get(d.accountId, d.id))?.folderPath).toBeNull();
      await h().drafts.placed(d.id, 'Drafts', '10', t(27));
      const e = await seedDraft(h(), { createdAt: t(1), updatedAt: t(1) });
      expect(await h().drafts.claimPendingCopy(e.id, t(5), t(20))).toBe(true);
      expect(await h().drafts.placedByClaim(e.id, t(20), 'Drafts', '11', t(21))).toBe(true);
      expect(await h().drafts.get(e.accountId, e.id)).toMatchObject({
        folderPath: 'Drafts',
        providerDraftId: '11',
      });
      expect((await h().drafts.pendingCopies(t(60), 1000)).map((x) => x.id)).not.toContain(e.id);
    });

    it('edits under an optimistic lock: the right version bumps it, a stale one is refused', async () => {
      const d = await seedDraft(h());
      const content = { to: 'carol@example.test', subject: 'New subject', body: 'New body' };
      const edited = await h().drafts.edit(d.accountId, d.id, 1, content, t(5));
      expect(edited).toEqual({ ...d, ...content, version: 2, updatedAt: t(5) });
      expect(await h().drafts.get(d.accountId, d.id)).toEqual(edited);
      expect(
        await h().drafts.edit(d.accountId, d.id, 1, { ...content, body: 'stale' }, t(6)),
      ).toBeUndefined();
      expect(await h().drafts.get(d.accountId, d.id)).toMatchObject({ body: 'New body', version: 2 });
    });

    it('of racing editors holding the same version exactly one wins', async () => {
      const d = await seedDraft(h());
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          h().drafts.edit(
            d.accountId,
            d.id,
            1,
            { to: d.to, subject: d.subject, body: `v${String(i)}` },
            t(1),
          ),
        ),
      );
      const won = results.filter((r) => r !== undefined);
      expect(won).toHaveLength(1);
      expect(await h().drafts.get(d.accountId, d.id)).toEqual(won[0]);
    });

    it('refuses edits from another account and to a draft that is no longer a draft', async () => {
      const d = await seedDraft(h());
      const other = await seedAccount(h().accounts);
      const content = { to: 'x@example.test', subject: 's', body: 'b' };
      expect(await h().drafts.edit(other, d.id, 1, content, t(1))).toBeUndefined();
      await h().drafts.setStatus(d.id, 'sent', t(2));
      expect(await h().drafts.get(d.accountId, d.id)).toMatchObject({ status: 'sent', updatedAt: t(2) });
      expect(await h().drafts.edit(d.accountId, d.id, 1, content, t(3))).toBeUndefined();
      expect(await h().drafts.get(d.accountId, d.id)).toMatchObject({ version: 1, body: d.body });
    });

    // Decision 0123: a sent draft's text is in the mailbox's Sent copy; ours was kept for good.
    it('the sweep removes the drafts sent or discarded before one time, and open ones untouched since another', async () => {
      // Earlier than any other test's drafts, so the count is this test's alone.
      const long = (month: number, day = 1) => new Date(Date.UTC(2001, month, day));
      const ended = async (status: Draft['status'], at: Date) => {
        const d = await seedDraft(h(), { createdAt: long(0), updatedAt: long(0) });
        await h().drafts.setStatus(d.id, status, at);
        return d;
      };
      const open = (updatedAt: Date, folderPath: string | null = 'Drafts') =>
        seedDraft(h(), { createdAt: long(0), updatedAt, folderPath });
      const removed = [
        await ended('sent', long(0)),
        await ended('discarded', long(0)),
        await ended('sent', long(1, 15)), // sent before the first time, though after the second
        await open(long(0)),
      ];
      const kept = [
        await ended('sent', long(3)),
        await open(long(1, 15)), // changed since the second time
        await open(long(0), null), // its mailbox copy is being written
      ];
      expect(await h().drafts.deleteFinished(long(2), long(1))).toBe(removed.length);
      for (const d of removed) expect(await h().drafts.get(d.accountId, d.id)).toBeUndefined();
      for (const d of kept) expect(await h().drafts.get(d.accountId, d.id)).toBeDefined();
    });
  });
}

export function pendingSendStoreContract(h: () => PendingSendStoreHarness): void {
  describe('PendingSendStore contract', () => {
    const seedSend = async (o: Partial<PendingSend> = {}): Promise<PendingSend> => {
      // Another approval of a seeded draft when draftId and accountId are given.
      const d =
        o.draftId !== undefined && o.accountId !== undefined
          ? { id: o.draftId, accountId: o.accountId, version: 1 }
          : await seedDraft(h());
      const s: PendingSend = {
        id: newId('send'),
        accountId: d.accountId,
        draftId: d.id,
        draftVersion: d.version,
        codeHash: 'a'.repeat(64),
        attempts: 0,
        status: 'pending',
        createdAt: t(0),
        expiresAt: t(15),
        claimedAt: null,
        finishedAt: null,
        error: null,
        requestedBy: { kind: 'api_key', id: 'key_x', clientId: null },
        ...o,
      };
      await h().pendingSends.create(s);
      return s;
    };
    const statusOf = async (s: PendingSend) => (await h().pendingSends.get(s.accountId, s.id))?.status;

    it('round-trips every field and is scoped by account', async () => {
      const s = await seedSend();
      expect(await h().pendingSends.get(s.accountId, s.id)).toEqual(s);
      const other = await seedAccount(h().accounts);
      expect(await h().pendingSends.get(other, s.id)).toBeUndefined();
      const done = await seedSend({
        attempts: 2,
        status: 'unknown',
        claimedAt: t(1),
        finishedAt: t(2),
        error: 'Connection closed after DATA',
      });
      expect(await h().pendingSends.get(done.accountId, done.id)).toEqual(done);
    });

    it('of 50 racing claims exactly one succeeds', async () => {
      const s = await seedSend();
      const results = await Promise.all(Array.from({ length: 50 }, () => h().pendingSends.claim(s.id, t(1))));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await h().pendingSends.get(s.accountId, s.id)).toMatchObject({
        status: 'sending',
        claimedAt: t(1),
      });
    });

    it('refuses a claim once expired, locked, sending or sent', async () => {
      const expired = await seedSend();
      expect(await h().pendingSends.claim(expired.id, t(15))).toBe(false);
      expect(await statusOf(expired)).toBe('pending');
      expect(await h().pendingSends.claim('send_missing', t(1))).toBe(false);

      const locked = await seedSend({ status: 'locked' });
      expect(await h().pendingSends.claim(locked.id, t(1))).toBe(false);

      const sent = await seedSend();
      expect(await h().pendingSends.claim(sent.id, t(1))).toBe(true);
      expect(await h().pendingSends.claim(sent.id, t(1))).toBe(false);
      await h().pendingSends.finish(sent.id, 'sent', t(2), null);
      expect(await h().pendingSends.claim(sent.id, t(3))).toBe(false);
      expect(await statusOf(sent)).toBe('sent');
    });

    it('claims a draft for sending once, whichever of its approvals comes first', async () => {
      const first = await seedSend();
      const second = await seedSend({ accountId: first.accountId, draftId: first.draftId });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          h().pendingSends.claim(i % 2 === 0 ? first.id : second.id, t(1)),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const claimed = (await statusOf(first)) === 'sending' ? first : second;
      const other = claimed === first ? second : first;
      expect(await statusOf(other)).toBe('pending');
      await h().pendingSends.finish(claimed.id, 'sent', t(2), null);
      expect(await h().pendingSends.claim(other.id, t(3))).toBe(false);
      // A refusal before anything was accepted frees the draft for its other approval.
      const third = await seedSend();
      const fourth = await seedSend({ accountId: third.accountId, draftId: third.draftId });
      expect(await h().pendingSends.claim(third.id, t(1))).toBe(true);
      expect(await h().pendingSends.claim(fourth.id, t(1))).toBe(false);
      await h().pendingSends.unclaim(third.id);
      expect(await h().pendingSends.claim(fourth.id, t(2))).toBe(true);
    });

    it('counts wrong codes and locks at the threshold; a locked send cannot be claimed', async () => {
      const s = await seedSend();
      for (let n = 1; n <= 4; n++) expect(await h().pendingSends.recordFailure(s.id, 5)).toBe(n);
      expect(await statusOf(s)).toBe('pending');
      expect(await h().pendingSends.recordFailure(s.id, 5)).toBe(5);
      expect(await h().pendingSends.get(s.accountId, s.id)).toMatchObject({ status: 'locked', attempts: 5 });
      expect(await h().pendingSends.claim(s.id, t(1))).toBe(false);
      // Locked, it counts no more (a check refuses it before reading a code).
      expect(await h().pendingSends.recordFailure(s.id, 5)).toBe(5);
      expect(await h().pendingSends.get(s.accountId, s.id)).toMatchObject({ status: 'locked', attempts: 5 });
    });

    it('counts racing wrong codes up to the lock, as if they came one after another', async () => {
      const s = await seedSend();
      const counts = await Promise.all(
        Array.from({ length: 8 }, () => h().pendingSends.recordFailure(s.id, 5)),
      );
      expect([...counts].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 5, 5, 5]);
      expect(await h().pendingSends.get(s.accountId, s.id)).toMatchObject({ status: 'locked', attempts: 5 });
    });

    it('does not lock a send that is already under way', async () => {
      const s = await seedSend({ attempts: 4 });
      expect(await h().pendingSends.claim(s.id, t(1))).toBe(true);
      expect(await h().pendingSends.recordFailure(s.id, 5)).toBe(5);
      expect(await statusOf(s)).toBe('sending');
    });

    it('unclaim makes a send claimable again; it only undoes a claim', async () => {
      const s = await seedSend();
      expect(await h().pendingSends.claim(s.id, t(1))).toBe(true);
      await h().pendingSends.unclaim(s.id);
      expect(await h().pendingSends.get(s.accountId, s.id)).toMatchObject({
        status: 'pending',
        claimedAt: null,
      });
      expect(await h().pendingSends.claim(s.id, t(2))).toBe(true);

      const locked = await seedSend({ status: 'locked' });
      await h().pendingSends.unclaim(locked.id);
      expect(await statusOf(locked)).toBe('locked');
    });

    it('finishes only a claimed send, recording the outcome', async () => {
      const s = await seedSend();
      await h().pendingSends.finish(s.id, 'sent', t(1), null);
      expect(await statusOf(s)).toBe('pending');
      expect(await h().pendingSends.claim(s.id, t(1))).toBe(true);
      await h().pendingSends.finish(s.id, 'unknown', t(2), 'Connection reset after DATA');
      expect(await h().pendingSends.get(s.accountId, s.id)).toEqual({
        ...s,
        status: 'unknown',
        claimedAt: t(1),
        finishedAt: t(2),
        error: 'Connection reset after DATA',
      });
      await h().pendingSends.finish(s.id, 'sent', t(3), null);
      expect(await statusOf(s)).toBe('unknown');
      await h().pendingSends.unclaim(s.id);
      expect(await statusOf(s)).toBe('unknown');
    });

    it('lists the sends waiting for this account, newest first; discard takes a pending one once', async () => {
      const a = await seedSend({ createdAt: t(1) });
      const b = await seedSend({ accountId: a.accountId, createdAt: t(2), requestedBy: null });
      const other = await seedSend({ createdAt: t(3) });
      const expired = await seedSend({ accountId: a.accountId, createdAt: t(4), expiresAt: t(5) });
      const waiting = await h().pendingSends.waiting(a.accountId, t(10), 10);
      expect(waiting.map((s) => s.id)).toEqual(
        [b.id, a.id].filter((id) => id !== expired.id && id !== other.id),
      );
      expect(waiting[1]?.requestedBy).toEqual({ kind: 'api_key', id: 'key_x', clientId: null });
      expect(await h().pendingSends.discard(other.accountId, a.id)).toBe(false);
      const racing = await Promise.all(
        Array.from({ length: 5 }, () => h().pendingSends.discard(a.accountId, a.id)),
      );
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect(await statusOf(a)).toBe('discarded');
      expect(await h().pendingSends.claim(a.id, t(10))).toBe(false);
      expect((await h().pendingSends.waiting(a.accountId, t(10), 10)).map((s) => s.id)).toEqual([b.id]);
    });

    it('lists as stranded only sends still sending that were claimed before the cutoff', async () => {
      // The other cases share the database and leave claimed sends behind too: look only at this case's rows.
      const seed = () => seedSend({ expiresAt: t(60) });
      const old = await seed();
      const recent = await seed();
      const finished = await seed();
      const waiting = await seed();
      expect(await h().pendingSends.claim(old.id, t(1))).toBe(true);
      expect(await h().pendingSends.claim(finished.id, t(1))).toBe(true);
      await h().pendingSends.finish(finished.id, 'sent', t(2), null);
      expect(await h().pendingSends.claim(recent.id, t(10))).toBe(true);
      const stranded = await h().pendingSends.stranded(t(5));
      const mine = stranded.filter((s) => [old.id, recent.id, finished.id, waiting.id].includes(s.id));
      expect(mine).toEqual([{ ...old, status: 'sending', claimedAt: t(1) }]);
      expect(
        stranded.every((s) => s.status === 'sending' && s.claimedAt !== null && s.claimedAt < t(5)),
      ).toBe(true);
    });

    // Decision 0123: approvals were kept for good, whatever became of them.
    it('the sweep removes the approvals whose time was over before a time; one in flight stays', async () => {
      // Earlier than any other test's sends, so the count is this test's alone.
      const long = (month: number) => new Date(Date.UTC(2001, month, 1));
      const send = (status: PendingSend['status'], o: Partial<PendingSend> = {}) =>
        seedSend({ status, createdAt: long(0), expiresAt: long(1), ...o });
      const removed = [
        await send('pending'),
        await send('discarded'),
        await send('locked', { attempts: 5 }),
        await send('unknown', { claimedAt: long(0), finishedAt: long(1) }),
        await send('sent', { claimedAt: long(0), finishedAt: long(1) }),
      ];
      const kept = [
        await send('sending', { claimedAt: long(0) }), // the stranded sweep's
        await send('sent', { claimedAt: long(0), finishedAt: long(3) }), // finished after the time
        await send('pending', { expiresAt: long(3) }), // still waiting then
      ];
      expect(await h().pendingSends.deleteEnded(long(2))).toBe(removed.length);
      for (const s of removed) expect(await statusOf(s)).toBeUndefined();
      for (const s of kept) expect(await statusOf(s)).toBe(s.status);
    });

    it('a draft removed by the sweep takes its approvals with it; one with a send under way stays', async () => {
      const long = new Date(Date.UTC(2001, 0, 1));
      const d = await seedDraft(h(), { createdAt: long });
      const s = await seedSend({ draftId: d.id, accountId: d.accountId, status: 'sent', finishedAt: t(1) });
      await h().drafts.setStatus(d.id, 'sent', long);
      const sending = await seedDraft(h(), { createdAt: long, updatedAt: long, folderPath: 'Drafts' });
      const inFlight = await seedSend({
        draftId: sending.id,
        accountId: sending.accountId,
        status: 'sending',
      });
      await h().drafts.deleteFinished(new Date(Date.UTC(2001, 1, 1)), new Date(Date.UTC(2001, 1, 1)));
      expect(await statusOf(s)).toBeUndefined();
      expect(await statusOf(inFlight)).toBe('sending');
      expect(await h().drafts.get(sending.accountId, sending.id)).toBeDefined();
    });
  });
}

export interface CardCodeStoreHarness extends DraftStoreHarness {
  cardCodes: CardCodeStore;
}

export function cardCodeStoreContract(h: () => CardCodeStoreHarness): void {
  describe('CardCodeStore contract', () => {
    const seedCode = async (o: Partial<CardCode> = {}): Promise<CardCode> => {
      const d = await seedDraft(h());
      const c: CardCode = {
        hash: newId('hash'),
        accountId: d.accountId,
        draftId: d.id,
        draftVersion: 3,
        createdAt: t(0),
        expiresAt: t(30),
        ...o,
      };
      await h().cardCodes.issue(c);
      return c;
    };

    it('redeems a code once, for its own account, before it expires', async () => {
      const c = await seedCode();
      const other = await seedAccount(h().accounts);
      expect(await h().cardCodes.redeem(other, c.hash, t(1))).toEqual({ ok: false, reason: 'unknown' });
      expect(await h().cardCodes.redeem(c.accountId, 'hash_missing', t(1))).toEqual({
        ok: false,
        reason: 'unknown',
      });
      const racing = await Promise.all(
        Array.from({ length: 20 }, () => h().cardCodes.redeem(c.accountId, c.hash, t(1))),
      );
      expect(racing.filter((r) => r.ok)).toEqual([{ ok: true, draftId: c.draftId, draftVersion: 3 }]);
      expect(await h().cardCodes.redeem(c.accountId, c.hash, t(2))).toEqual({ ok: false, reason: 'used' });
      const late = await seedCode();
      expect(await h().cardCodes.redeem(late.accountId, late.hash, t(30))).toEqual({
        ok: false,
        reason: 'expired',
      });
    });

    // Decision 0123: removed by the hourly sweep, not by the account's next code (its last ones stayed for good).
    it('the sweep removes the codes that expired before a time, used or not, and only those', async () => {
      // Earlier than any other test's codes, so the counts are this test's alone.
      const long = (month: number) => new Date(Date.UTC(2001, month, 1));
      const expired = await seedCode({ createdAt: long(0), expiresAt: long(0) });
      const used = await seedCode({ createdAt: long(0), expiresAt: long(1) });
      expect((await h().cardCodes.redeem(used.accountId, used.hash, long(0))).ok).toBe(true);
      const live = await seedCode({ createdAt: long(0), expiresAt: long(5) });
      expect(await h().cardCodes.deleteExpired(long(2))).toBe(2);
      expect(await h().cardCodes.redeem(expired.accountId, expired.hash, long(3))).toEqual({
        ok: false,
        reason: 'unknown',
      });
      expect(await h().cardCodes.redeem(live.accountId, live.hash, long(3))).toMatchObject({ ok: true });
    });
  });
}
