import { describe, expect, it } from 'vitest';
import { buildMessage } from '../../../test/rig/message-factory.ts';
import type { MailSession } from './mail-ports.ts';
import type { MailHarness } from './mail-session.contract.ts';
import { byId, deliver, spec } from './mail-session-fixtures.contract.ts';

/** The writing half of a mail session, on every adapter: moves keep track of where mail went, nothing is lost. */
export function mailWriterContract(name: string, makeHarness: () => Promise<MailHarness>): void {
  describe(`MailboxWriter contract: ${name}`, () => {
    const withHarness = async (f: (h: MailHarness) => Promise<void>) => {
      const h = await makeHarness();
      try {
        await f(h);
      } finally {
        await h.close();
      }
    };

    it('moves messages and reports where each one landed', async () => {
      await withHarness(async (h) => {
        const [a, b] = await deliver(h, [spec(1), spec(2)]);
        const s = await h.session();
        try {
          const window = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
          const refA = byId(window.added, a!).ref;
          const moved = await s.move(h.inboxPath, [refA, '999999'], h.archivePath);
          expect([...moved.keys()]).toEqual([refA]);
          const archive = await s.changes(h.archivePath, null, { windowSize: 10, knownRefs: [] });
          expect(byId(archive.added, a!).ref).toBe(moved.get(refA)!.ref);
          const inbox = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
          expect(inbox.added.map((m) => m.internetMessageId)).toEqual([b!.messageId]);
        } finally {
          await s.close();
        }
      });
    });

    it('moves two copies of one message (delivered twice) to two places, each reported once', async () => {
      await withHarness(async (h) => {
        const twin = spec(1);
        await deliver(h, [twin, twin, spec(2)]);
        const s = await h.session();
        try {
          const window = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
          const refs = window.added.filter((m) => m.internetMessageId === twin.messageId).map((m) => m.ref);
          expect(refs).toHaveLength(2);
          const moved = await s.move(h.inboxPath, refs, h.archivePath);
          expect([...moved.keys()].sort()).toEqual([...refs].sort());
          const landed = [...moved.values()].map((p) => p.ref);
          expect(new Set(landed).size).toBe(2);
          const archive = await s.changes(h.archivePath, null, { windowSize: 10, knownRefs: [] });
          expect(archive.added.map((m) => m.ref).sort()).toEqual([...landed].sort());
        } finally {
          await s.close();
        }
      });
    });

    it('finds a moved message in the folder it went to by its Message-ID', async () => {
      await withHarness(async (h) => {
        const [a] = await deliver(h, [spec(1), spec(2)]);
        const s = await h.session();
        try {
          const window = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
          const refA = byId(window.added, a!).ref;
          expect(await s.locate(h.inboxPath, a!.messageId)).toEqual({
            ref: refA,
            position: byId(window.added, a!).position,
          });
          const moved = await s.move(h.inboxPath, [refA], h.archivePath);
          expect(await s.locate(h.archivePath, a!.messageId)).toEqual(moved.get(refA));
          expect(await s.locate(h.inboxPath, a!.messageId)).toBeUndefined();
          expect(await s.locate(h.archivePath, '<nobody@example.test>')).toBeUndefined();
        } finally {
          await s.close();
        }
      });
    });

    it('creates a Screened folder once: listed with the screened role, a second create is no error, mail moves in', async () => {
      await withHarness(async (h) => {
        const [a] = await deliver(h, [spec(1)]);
        const s = await h.session();
        try {
          await s.createFolder('Screened');
          await s.createFolder('Screened');
          const screened = (await s.listFolders()).filter((f) => f.canonical === 'screened');
          expect(screened).toHaveLength(1);
          const ref = byId(
            (await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] })).added,
            a!,
          ).ref;
          const moved = await s.move(h.inboxPath, [ref], screened[0]!.path);
          expect(moved.size).toBe(1);
          const inside = await s.changes(screened[0]!.path, null, { windowSize: 10, knownRefs: [] });
          expect(inside.added.map((m) => m.internetMessageId)).toEqual([a!.messageId]);
        } finally {
          await s.close();
        }
      });
    });

    /** One read message in the inbox, and a session on the mailbox: its ref for `f`. */
    const withOneMessage = (f: (h: MailHarness, s: MailSession, ref: string) => Promise<void>) =>
      withHarness(async (h) => {
        const [a] = await deliver(h, [spec(1)], { flags: () => ['\\Seen'] });
        const s = await h.session();
        try {
          const window = await s.changes(h.inboxPath, null, { windowSize: 10, knownRefs: [] });
          await f(h, s, byId(window.added, a!).ref);
        } finally {
          await s.close();
        }
      });

    it('adds and removes flags and keywords', async () => {
      await withOneMessage(async (h, s, ref) => {
        await s.setFlags(h.inboxPath, [ref], ['\\Flagged', 'Clients'], ['\\Seen']);
        expect(await s.flagsOf(h.inboxPath, [ref])).toEqual([
          { ref, unread: true, starred: true, labels: ['Clients'] },
        ]);
        await s.setFlags(h.inboxPath, [ref], ['\\Seen'], ['\\Flagged', 'Clients']);
        expect(await s.flagsOf(h.inboxPath, [ref])).toEqual([
          { ref, unread: false, starred: false, labels: [] },
        ]);
      });
    });

    it('says which messages a flag change found: not one that is gone', async () => {
      await withOneMessage(async (h, s, ref) => {
        expect([...(await s.setFlags(h.inboxPath, [ref, '999999'], ['\\Flagged'], []))]).toEqual([ref]);
        // Found and already as asked is found too; and a change that found nothing says so.
        expect([...(await s.setFlags(h.inboxPath, [ref], ['\\Flagged'], []))]).toEqual([ref]);
        expect([...(await s.setFlags(h.inboxPath, ['999999'], [], ['\\Flagged']))]).toEqual([]);
        expect(await s.flagsOf(h.inboxPath, [ref])).toEqual([
          { ref, unread: false, starred: true, labels: [] },
        ]);
      });
    });

    it('makes a label where the mailbox lists labels, and takes it away once no message carries it (0146)', async () => {
      await withOneMessage(async (h, s, ref) => {
        const listed = h.labelsListed === true;
        expect(await s.makeLabels(['Receipts-0146', 'Receipts-0146', '\\Flagged'])).toEqual(
          listed ? ['Receipts-0146'] : [],
        );
        expect((await s.listLabels()).includes('Receipts-0146')).toBe(listed);
        expect(await s.makeLabels(['Receipts-0146'])).toEqual([]);
        await s.setFlags(h.inboxPath, [ref], ['Receipts-0146'], []);
        expect(await s.removeLabelIfUnused('Receipts-0146')).toBe(false);
        expect(await s.flagsOf(h.inboxPath, [ref])).toEqual([
          { ref, unread: false, starred: false, labels: ['Receipts-0146'] },
        ]);
        await s.setFlags(h.inboxPath, [ref], [], ['Receipts-0146']);
        expect(await s.removeLabelIfUnused('Receipts-0146')).toBe(listed);
        expect(await s.listLabels()).not.toContain('Receipts-0146');
        expect(await s.removeLabelIfUnused('Receipts-0146')).toBe(false);
        expect(await s.removeLabelIfUnused('Never-made-0146')).toBe(false);
      });
    });

    it('appends a message and deletes a draft it wrote', async () => {
      await withHarness(async (h) => {
        const s = await h.session();
        try {
          const draft = spec(5, { subject: 'Draft: réponse' });
          const placed = await s.append(
            h.archivePath,
            buildMessage(draft),
            ['\\Draft', '\\Seen'],
            draft.date,
          );
          expect(placed).toBeDefined();
          const full = await s.fetchMessage(h.archivePath, placed!.ref);
          expect(full?.summary.subject).toBe('Draft: réponse');
          await s.deleteOwnDraft(h.archivePath, placed!.ref);
          expect(await s.fetchMessage(h.archivePath, placed!.ref)).toBeUndefined();
        } finally {
          await s.close();
        }
      });
    });
  });
}
