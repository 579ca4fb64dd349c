import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentCases } from './mail-session-content.contract.ts';
import { ALICE, BASE, byId, deliver, spec } from './mail-session-fixtures.contract.ts';
import { CANONICAL_FOLDERS } from '../messages/folder.ts';
import { NEWEST, type MailSession } from './mail-ports.ts';
import type { FlagState, RemoteSummary, SyncCursor } from './mail-types.ts';

/**
 * What every mail adapter (IMAP, demo, Gmail, Graph) must do, checked against a real or emulated provider. The
 * harness plays "another mail client": it delivers, flags, expunges and moves mail behind the session's back.
 */
export interface MailHarness {
  /** A logged-in session on this harness's mailbox. The suite closes it. */
  session(): Promise<MailSession>;
  readonly inboxPath: string;
  readonly archivePath: string;
  /** Delivers a raw RFC 5322 message; flags use IMAP names (`\Seen`, `\Flagged`, keywords such as `Project-X`). */
  append(folderPath: string, raw: Buffer, opts?: { flags?: string[]; date?: Date }): Promise<void>;
  /** Replaces every flag of the message with this Message-ID header (`<id@host>`). */
  setFlags(folderPath: string, messageIdHeader: string, flags: string[]): Promise<void>;
  /** Deletes the message for good, as another client would. */
  expunge(folderPath: string, messageIdHeader: string): Promise<void>;
  moveElsewhere(folderPath: string, messageIdHeader: string, toPath: string): Promise<void>;
  /** Empties the folder and makes its positions invalid (IMAP: delete and re-create, a new UIDVALIDITY). */
  resetUidValidity?(folderPath: string): Promise<void>;
  /**
   * Expires the provider's change log (Gmail's history, Graph's delta tokens) and nothing else: the messages and
   * their ids stay. Only for providers whose refs outlive the log (decision 0045).
   */
  expireChangeLog?(): Promise<void>;
  /** Requests the provider has answered so far (from anyone), where the test rig counts them. */
  providerRequests?(): number;
  /** The name the provider keeps for the mailbox (`ownName`); absent where it keeps none. */
  readonly ownName?: string;
  /** True where putting a label on mail adds it to the provider's own list of labels (Gmail). Default false. */
  readonly labelsListed?: boolean;
  /** False when `watch` cannot notice mail delivered by others (e.g. the demo mailbox). Default true. */
  readonly watchNoticesDelivery?: boolean;
  /** Releases the mailbox (the suite calls it after each case). */
  close(): Promise<void>;
}

/**
 * What a mailbox can be made to do from outside, which decides the cases that apply to it (registered only where they
 * apply, so nothing is skipped): `reset` — its positions made invalid (`resetUidValidity`); `changeLog` — its change
 * log expired while its ids stay (`expireChangeLog`).
 */
export interface MailHarnessCan {
  readonly reset?: boolean;
  readonly changeLog?: boolean;
}

export function mailSessionContract(
  name: string,
  makeHarness: () => Promise<MailHarness>,
  can: MailHarnessCan = {},
): void {
  describe(`MailSession contract: ${name}`, () => {
    let h: MailHarness;
    let s: MailSession;
    const first = (windowSize = 50): Promise<{ cursor: SyncCursor; added: readonly RemoteSummary[] }> =>
      s.changes(h.inboxPath, null, { windowSize, knownRefs: [] });

    beforeEach(async () => {
      h = await makeHarness();
      s = await h.session();
    });
    afterEach(async () => {
      await s.close();
      await h.close();
    });

    it('says the name the provider keeps for the mailbox, and nothing where it keeps none', async () => {
      expect(await s.ownName()).toBe(h.ownName);
    });

    it('lists folders with canonical ids', async () => {
      const folders = await s.listFolders();
      expect(folders.find((f) => f.canonical === 'inbox')?.path).toBe(h.inboxPath);
      expect(folders.find((f) => f.canonical === 'archive')?.path).toBe(h.archivePath);
      const canonical = folders.map((f) => f.canonical).filter((c) => c !== null);
      expect(new Set(canonical).size).toBe(canonical.length);
      for (const c of canonical) expect(CANONICAL_FOLDERS).toContain(c);
      for (const f of folders) expect(f.name).not.toBe('');
    });

    it('starts with the newest windowSize messages, decoded, with flags, list headers and attachments', async () => {
      await deliver(h, [spec(1), spec(2), spec(3)], { flags: () => ['\\Seen'] });
      const specials = await deliver(
        h,
        [
          spec(10, { subject: 'Grüße aus Köln — 日本語 ✓', text: 'Bis morgen beim Café.\n' }),
          spec(11, {
            from: { name: '山田 太郎', address: 'taro@example.jp' },
            subject: '会議の議事録について',
            subjectCharset: 'iso-2022-jp',
            bodyCharset: 'iso-2022-jp',
            text: '来週の会議について確認します。\n',
          }),
          spec(12, {
            from: { name: 'Weekly Digest', address: 'digest@news.example.com' },
            subject: 'This week in tech',
            list: {
              id: 'weekly.news.example.com',
              name: 'Weekly Digest',
              unsubscribeHttps: 'https://news.example.com/u/12',
              unsubscribeMailto: 'mailto:unsubscribe@news.example.com',
              oneClick: true,
            },
          }),
          spec(13, {
            subject: 'Files for you',
            attachments: [
              { filename: 'report.csv', contentType: 'text/csv', content: Buffer.from('id,amount\n1,2\n') },
            ],
          }),
          spec(14, {
            subject: 'Invoice €42 – “final” version',
            subjectCharset: 'windows-1252',
            bodyCharset: 'windows-1252',
            text: 'Total €42 – “final”.\n',
            list: { id: 'billing.example.com', unsubscribeMailto: 'mailto:leave@example.com' },
          }),
        ],
        {
          flags: (i) =>
            [[], ['\\Seen', '\\Flagged'], ['\\Seen', 'Project-X'], ['\\Seen'], ['\\Seen']][i] ?? [],
        },
      );
      const { cursor, added, ...rest } = await s.changes(h.inboxPath, null, { windowSize: 5, knownRefs: [] });
      expect(rest).toMatchObject({ reset: true, flags: [], removed: [] });
      expect(added.map((m) => m.internetMessageId).sort()).toEqual(specials.map((m) => m.messageId).sort());
      expect(new Set(added.map((m) => m.ref)).size).toBe(5);
      expect(cursor.windowLow).toBe(Math.min(...added.map((m) => m.position)));
      const [umlauts, japanese, newsletter, attachment, cp1252] = specials.map((m) => byId(added, m));
      expect(umlauts).toMatchObject({
        subject: 'Grüße aus Köln — 日本語 ✓',
        unread: true,
        starred: false,
        labels: [],
      });
      expect(umlauts?.snippet).toContain('Bis morgen beim Café.');
      expect(umlauts?.from).toEqual({ address: 'bob@example.com', name: 'Bob Smith' });
      expect(umlauts?.to).toEqual([ALICE]);
      expect(umlauts?.date.getTime()).toBe(BASE + 10 * 3_600_000);
      expect(japanese).toMatchObject({ subject: '会議の議事録について', unread: false, starred: true });
      expect(japanese?.from.name).toBe('山田 太郎');
      expect(japanese?.snippet).toContain('来週の会議について確認します。');
      expect(newsletter).toMatchObject({ labels: ['Project-X'], listId: 'weekly.news.example.com' });
      expect(newsletter?.listUnsubscribe).toContain('<https://news.example.com/u/12>');
      expect(newsletter?.listUnsubscribePost).toBe(true);
      expect(attachment?.hasAttachments).toBe(true);
      expect(cp1252).toMatchObject({ subject: 'Invoice €42 – “final” version', listUnsubscribePost: false });
      expect(cp1252?.snippet).toContain('Total €42 – “final”.');
      expect(cp1252?.listUnsubscribe).toBe('<mailto:leave@example.com>');
      for (const m of [umlauts, japanese, newsletter, cp1252]) expect(m?.hasAttachments).toBe(false);
      for (const m of added) {
        expect(m.snippet).not.toMatch(/\n/);
        expect(m.snippet.length).toBeLessThanOrEqual(200);
        expect(m.size).toBeGreaterThan(0);
      }
    });

    it('reports new mail in added, and only that', async () => {
      await deliver(h, [spec(1), spec(2)]);
      const initial = await first();
      const [fresh] = await deliver(h, [spec(3, { subject: 'Fresh news' })]);
      const next = await s.changes(h.inboxPath, initial.cursor, {
        windowSize: 50,
        knownRefs: initial.added.map((m) => m.ref),
      });
      expect(next.reset).toBe(false);
      expect(next.added.map((m) => m.internetMessageId)).toEqual([fresh!.messageId]);
      expect(next.added[0]).toMatchObject({ subject: 'Fresh news', unread: true });
      expect(next.removed).toEqual([]);
      expect(next.cursor.uidValidity).toBe(initial.cursor.uidValidity);
      expect(next.cursor.uidNext).toBeGreaterThan(initial.cursor.uidNext);
      expect(next.added[0]!.position).toBeGreaterThan(Math.max(...initial.added.map((m) => m.position)));
    });

    it('hands added mail to onAdded instead of returning it, the same messages and cursor', async () => {
      await deliver(h, [spec(1), spec(2), spec(3), spec(4, { html: '<p>Only <b>HTML</b> here</p>' })]);
      const collected = await first(3);
      const batches: { refs: string[]; reset: boolean }[] = [];
      const handed: RemoteSummary[] = [];
      const streamed = await s.changes(h.inboxPath, null, {
        windowSize: 3,
        knownRefs: [],
        onAdded: (batch, reset) => {
          batches.push({ refs: batch.map((m) => m.ref), reset });
          handed.push(...batch);
          return Promise.resolve();
        },
      });
      expect(streamed.added).toEqual([]);
      expect(streamed.cursor).toEqual(collected.cursor);
      expect(batches.length).toBeGreaterThan(0);
      expect(batches.every((b) => b.reset)).toBe(true);
      const byRef = (list: readonly RemoteSummary[]) => [...list].sort((a, b) => a.position - b.position);
      expect(byRef(handed)).toEqual(byRef(collected.added));

      const [fresh] = await deliver(h, [spec(5, { subject: 'Streamed news' })]);
      const next: { subject: string; reset: boolean }[] = [];
      const incremental = await s.changes(h.inboxPath, streamed.cursor, {
        windowSize: 3,
        knownRefs: handed.map((m) => m.ref),
        onAdded: (batch, reset) => {
          next.push(...batch.map((m) => ({ subject: m.subject, reset })));
          return Promise.resolve();
        },
      });
      expect(fresh).toBeDefined();
      expect(next).toEqual([{ subject: 'Streamed news', reset: false }]);
      expect(incremental.added).toEqual([]);
      expect(incremental.cursor.uidNext).toBeGreaterThan(streamed.cursor.uidNext);
    });

    it('reports flag changes made elsewhere', async () => {
      const [, second] = await deliver(h, [spec(1), spec(2), spec(3)]);
      const initial = await first();
      await h.setFlags(h.inboxPath, second!.messageId, ['\\Seen', '\\Flagged', 'Later']);
      const ref = byId(initial.added, second!).ref;
      const next = await s.changes(h.inboxPath, initial.cursor, {
        windowSize: 50,
        knownRefs: initial.added.map((m) => m.ref),
      });
      expect(next.flags.find((f) => f.ref === ref)).toEqual({
        ref,
        unread: false,
        starred: true,
        labels: ['Later'],
      });
      expect(next).toMatchObject({ reset: false, added: [], removed: [] });
      expect(await s.flagsOf(h.inboxPath, [ref])).toEqual([
        { ref, unread: false, starred: true, labels: ['Later'] },
      ]);
    });

    it('reports expunged and moved-away messages in removed', async () => {
      const [gone, moved, kept] = await deliver(h, [spec(1), spec(2), spec(3)]);
      const initial = await first();
      await h.expunge(h.inboxPath, gone!.messageId);
      await h.moveElsewhere(h.inboxPath, moved!.messageId, h.archivePath);
      const next = await s.changes(h.inboxPath, initial.cursor, {
        windowSize: 50,
        knownRefs: initial.added.map((m) => m.ref),
      });
      expect([...next.removed].sort()).toEqual(
        [byId(initial.added, gone!).ref, byId(initial.added, moved!).ref].sort(),
      );
      expect(next.added).toEqual([]);
      expect(next.flags.map((f) => f.ref)).not.toContain(byId(initial.added, gone!).ref);
      const archived = await s.changes(h.archivePath, null, { windowSize: 50, knownRefs: [] });
      expect(archived.added.map((m) => m.internetMessageId)).toEqual([moved!.messageId]);
      expect(next.flags.every((f) => f.ref === byId(initial.added, kept!).ref)).toBe(true);
    });

    it('reports nothing when nothing changed', async () => {
      await deliver(h, [spec(1), spec(2, { subject: 'Second' })], {
        flags: (i) => (i === 0 ? ['\\Seen'] : []),
      });
      const initial = await first();
      const knownRefs = initial.added.map((m) => m.ref);
      const state = new Map<string, FlagState>(
        initial.added.map((m) => [
          m.ref,
          { ref: m.ref, unread: m.unread, starred: m.starred, labels: m.labels },
        ]),
      );
      let cursor = initial.cursor;
      for (let round = 0; round < 2; round++) {
        const next = await s.changes(h.inboxPath, cursor, { windowSize: 50, knownRefs });
        expect(next).toMatchObject({ reset: false, added: [], removed: [] });
        // Providers without change tracking may repeat the current flags; they must equal what we know.
        for (const f of next.flags) expect(f).toEqual(state.get(f.ref));
        expect(next.cursor.uidValidity).toBe(cursor.uidValidity);
        expect(next.cursor.uidNext).toBe(cursor.uidNext);
        cursor = next.cursor;
      }
    });

    const itIf = (applies: boolean | undefined) => (applies === true ? it : () => undefined);

    itIf(can.reset)('recovers from a UIDVALIDITY change with a fresh window', async () => {
      await deliver(h, [spec(1), spec(2)], { folder: h.archivePath });
      const initial = await s.changes(h.archivePath, null, { windowSize: 50, knownRefs: [] });
      expect(initial.added).toHaveLength(2);
      // A later session, as the sync engine opens one per run (a server may drop sessions whose folder vanished).
      await s.close();
      await h.resetUidValidity!(h.archivePath);
      s = await h.session();
      const [after] = await deliver(h, [spec(3, { subject: 'After the reset' })], { folder: h.archivePath });
      const next = await s.changes(h.archivePath, initial.cursor, {
        windowSize: 50,
        knownRefs: initial.added.map((m) => m.ref),
      });
      expect(next.added.map((m) => m.internetMessageId)).toEqual([after!.messageId]);
      expect(next.cursor.windowLow).toBe(next.added[0]!.position);
      if (can.changeLog !== true) {
        // IMAP: the old UIDs name nothing any more, so the index starts the folder over.
        expect(next.reset).toBe(true);
        expect(next.cursor.uidValidity).not.toBe(initial.cursor.uidValidity);
      } else {
        // Ids outlive the log: not a reset (the index keeps its rows); the emptied folder's messages are removed.
        expect(next.reset).toBe(false);
        expect([...next.removed].sort()).toEqual(initial.added.map((m) => m.ref).sort());
      }
    });

    itIf(can.changeLog)(
      'after its change log expired, names the same messages by the same refs and drops only what left',
      async () => {
        const [stays, leaves] = await deliver(h, [spec(1), spec(2)], { folder: h.archivePath });
        const initial = await s.changes(h.archivePath, null, { windowSize: 50, knownRefs: [] });
        expect(initial.added).toHaveLength(2);
        await s.close();
        await h.expunge(h.archivePath, leaves!.messageId);
        await h.expireChangeLog!();
        s = await h.session();
        const [after] = await deliver(h, [spec(3, { subject: 'After the expiry' })], {
          folder: h.archivePath,
        });
        const next = await s.changes(h.archivePath, initial.cursor, {
          windowSize: 50,
          knownRefs: initial.added.map((m) => m.ref),
        });
        expect(next.reset).toBe(false);
        expect(next.cursor.uidValidity).toBe(initial.cursor.uidValidity);
        const refOf = (id: string) => initial.added.find((m) => m.internetMessageId === id)!.ref;
        expect(next.added.map((m) => m.internetMessageId).sort()).toEqual(
          [after!.messageId, stays!.messageId].sort(),
        );
        expect(next.added.find((m) => m.internetMessageId === stays!.messageId)!.ref).toBe(
          refOf(stays!.messageId),
        );
        expect(next.removed).toEqual([refOf(leaves!.messageId)]);
      },
    );

    itIf(can.changeLog)(
      'after its change log expired, tells which of many known messages below the window are left, without a request for each',
      async () => {
        const sent = await deliver(
          h,
          Array.from({ length: 40 }, (_, i) => spec(i)),
          { folder: h.archivePath },
        );
        const initial = await s.changes(h.archivePath, null, { windowSize: 50, knownRefs: [] });
        expect(initial.added).toHaveLength(40);
        await s.close();
        // Two of the 35 below the next window of 5 leave; every known message stays in the index until then.
        const gone = [sent[3]!, sent[17]!];
        for (const m of gone) await h.expunge(h.archivePath, m.messageId);
        await h.expireChangeLog!();
        s = await h.session();
        const before = h.providerRequests?.();
        const next = await s.changes(h.archivePath, initial.cursor, {
          windowSize: 5,
          knownRefs: initial.added.map((m) => m.ref),
        });
        expect(next.reset).toBe(false);
        expect(next.added.map((m) => m.internetMessageId).sort()).toEqual(
          sent
            .slice(-5)
            .map((m) => m.messageId)
            .sort(),
        );
        const refOf = (id: string) => initial.added.find((m) => m.internetMessageId === id)!.ref;
        expect([...next.removed].sort()).toEqual(gone.map((m) => refOf(m.messageId)).sort());
        // Reading each of the 35 would be 35 requests; listing the folder's ids takes a few.
        if (before !== undefined) expect(h.providerRequests!() - before).toBeLessThan(20);
      },
    );

    it('pages older messages below the window without gaps or duplicates', async () => {
      const all = await deliver(
        h,
        Array.from({ length: 25 }, (_, i) => spec(i)),
      );
      const initial = await first(10);
      expect(initial.added).toHaveLength(10);
      const seen = [...initial.added];
      let below = initial.cursor.windowLow;
      for (let page = 0; page < 10; page++) {
        const older = await s.fetchOlder(h.inboxPath, below, 7);
        if (older.length === 0) break;
        expect(older.length).toBeLessThanOrEqual(7);
        const positions = older.map((m) => m.position);
        expect(positions).toEqual([...positions].sort((a, b) => b - a)); // newest first
        for (const p of positions) expect(p).toBeLessThan(below);
        seen.push(...older);
        below = Math.min(...positions);
      }
      expect(new Set(seen.map((m) => m.position)).size).toBe(25);
      expect(seen.map((m) => m.internetMessageId).sort()).toEqual(all.map((m) => m.messageId).sort());
      expect(await s.fetchOlder(h.inboxPath, below, 7)).toEqual([]);
      // Below a position past every message: the newest ones.
      const newest = Math.max(...seen.map((m) => m.position));
      expect((await s.fetchOlder(h.inboxPath, newest + 1_000_000, 3)).map((m) => m.position)).toEqual(
        [...seen.map((m) => m.position)].sort((a, b) => b - a).slice(0, 3),
      );
      // NEWEST, whatever the provider's positions: the same (a UID bound past 2^32 would be refused at IMAP).
      expect((await s.fetchOlder(h.inboxPath, NEWEST, 3)).map((m) => m.position)).toEqual(
        [...seen.map((m) => m.position)].sort((a, b) => b - a).slice(0, 3),
      );
    });

    contentCases(() => ({ h, s }));
  });
}
