import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { SelectedPageQuery } from '../inboxes/inbox-store.ts';
import { newInbox, seedAccount } from '../inboxes/inbox-store.contract.ts';
import type { FolderId } from './folder.ts';
import { newFolderId, seedInbox, type FolderStoreHarness } from './folder-store.contract.ts';
import type { MessageId, MessageSummary } from './message.ts';
import type { MessageStore } from './message-store.ts';

export interface MessageStoreHarness extends FolderStoreHarness {
  messages: MessageStore;
}

export function newSummary(
  inboxId: InboxId,
  folderId: FolderId,
  n: number,
  o: Partial<MessageSummary> = {},
): MessageSummary {
  return {
    id: newId('msg') as MessageId,
    inboxId,
    folderId,
    providerRef: String(n),
    position: n,
    threadId: null,
    internetMessageId: `<m${String(n)}@example.test>`,
    subject: `Message ${String(n)}`,
    from: { address: `sender${String(n % 7)}@example.test`, name: `Sender ${String(n % 7)}` },
    to: [{ address: 'me@example.test', name: '' }],
    snippet: `Snippet ${String(n)}`,
    // Some messages share a date, so ordering must fall back to position and id.
    date: new Date(Date.UTC(2030, 0, 1) + Math.floor(n / 3) * 60_000),
    unread: n % 2 === 0,
    starred: false,
    labels: [],
    hasAttachments: false,
    size: 1000 + n,
    listId: null,
    listUnsubscribe: null,
    listUnsubscribePost: false,
    ...o,
  };
}

async function setup(h: MessageStoreHarness) {
  const inbox = await seedInbox(h);
  const folders = await h.folders.replaceAll(
    inbox,
    [
      { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
      { path: 'Archive', name: 'Archive', canonical: 'archive' },
    ],
    newFolderId,
  );
  const byPath = new Map(folders.map((f) => [f.path, f.id]));
  return { inbox, inboxFolder: byPath.get('INBOX')!, archive: byPath.get('Archive')! };
}

export function messageStoreContract(h: () => MessageStoreHarness): void {
  describe('MessageStore contract', () => {
    it('round-trips a summary, non-ASCII included', async () => {
      const { inbox, inboxFolder } = await setup(h());
      const m = newSummary(inbox, inboxFolder, 1, {
        subject: 'Réunion — 日本語 🎉',
        from: { address: 'boss@example.test', name: 'Zoë Boss' },
        labels: ['Work', 'Later'],
        listUnsubscribe: '<https://news.example/u/1>',
        listUnsubscribePost: true,
        threadId: 'thr_1',
      });
      await h().messages.upsertMany([m]);
      expect(await h().messages.get(inbox, m.id)).toEqual(m);
      expect(await h().messages.findByRef(inboxFolder, '1')).toEqual(m);
    });

    it('keeps a size the column cannot hold as the largest it can, and a negative one as 0', async () => {
      // A mail server says the size (IMAP RFC822.SIZE, Gmail sizeEstimate, Graph size); one that says more than 2 GiB
      // or less than nothing must not stop the sync of the other messages of its batch.
      const { inbox, inboxFolder } = await setup(h());
      const huge = newSummary(inbox, inboxFolder, 1, { size: 2 ** 32 + 5 });
      const negative = newSummary(inbox, inboxFolder, 2, { size: -1 });
      const fine = newSummary(inbox, inboxFolder, 3, { size: 1234 });
      await h().messages.upsertMany([huge, negative, fine]);
      expect((await h().messages.get(inbox, huge.id))?.size).toBe(2 ** 31 - 1);
      expect((await h().messages.get(inbox, negative.id))?.size).toBe(0);
      expect(await h().messages.get(inbox, fine.id)).toEqual(fine);
    });

    it('sendersOf: the names these addresses and domains wrote under, distinct, not empty, in these inboxes', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const other = await setup(h());
      const from = (address: string, name: string) => ({ from: { address, name } });
      await h().messages.upsertMany([
        newSummary(inbox, inboxFolder, 1, from('jane@corp.test', 'Jane Boss')),
        newSummary(inbox, archive, 2, from('jane@corp.test', 'Jane Boss')),
        newSummary(inbox, inboxFolder, 3, from('jane@corp.test', 'Jane B.')),
        newSummary(inbox, inboxFolder, 4, from('ops@mail.corp.test', 'Ops')),
        newSummary(inbox, inboxFolder, 5, from('x@notcorp.test', 'Not Corp')),
        newSummary(inbox, inboxFolder, 6, from('anna@xn--mller-kva.test', 'Anna')),
        newSummary(inbox, inboxFolder, 7, from('quiet@corp.test', '')),
        newSummary(inbox, inboxFolder, 8, from('x@c_rp.test', 'Underscore')),
      ]);
      await h().messages.upsertMany([
        newSummary(other.inbox, other.inboxFolder, 1, from('jane@corp.test', 'Elsewhere')),
      ]);
      const of = async (senders: { addresses?: string[]; domains?: string[] }, inboxes = [inbox]) =>
        (await h().messages.sendersOf(inboxes, { addresses: [], domains: [], ...senders }))
          .map((p) => `${p.name} <${p.address}>`)
          .sort();
      expect(await of({ addresses: ['Jane@Corp.test'] })).toEqual([
        'Jane B. <jane@corp.test>',
        'Jane Boss <jane@corp.test>',
      ]);
      // A domain covers those under it, not a name that ends the same; an address by its ASCII form; LIKE's _ as itself.
      expect(await of({ domains: ['corp.test'] })).toEqual([
        'Jane B. <jane@corp.test>',
        'Jane Boss <jane@corp.test>',
        'Ops <ops@mail.corp.test>',
      ]);
      expect(await of({ addresses: ['anna@müller.test'] })).toEqual(['Anna <anna@xn--mller-kva.test>']);
      expect(await of({ domains: ['c_rp.test', 'cxrp.test'] })).toEqual(['Underscore <x@c_rp.test>']);
      expect(await of({ addresses: ['jane@corp.test'] }, [inbox, other.inbox])).toHaveLength(3);
      // Known-good lists of several inboxes: more addresses than one statement takes.
      const many = Array.from({ length: 70_000 }, (_, i) => `friend${String(i)}@many.test`);
      expect(await of({ addresses: [...many, 'ops@mail.corp.test'] })).toEqual(['Ops <ops@mail.corp.test>']);
      expect(await of({})).toEqual([]);
      expect(await of({ addresses: ['jane@corp.test'] }, [])).toEqual([]);
    });

    it('keepsMailFrom: mail from an address, or a domain and those under it, besides one message, outside Screened, Spam and Trash', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const folders = await h().folders.replaceAll(
        inbox,
        [
          { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
          { path: 'Archive', name: 'Archive', canonical: 'archive' },
          { path: 'Junk', name: 'Junk', canonical: 'spam' },
          { path: 'Screened', name: 'Screened', canonical: 'screened' },
        ],
        newFolderId,
      );
      const idOf = (role: string) => folders.find((f) => f.canonical === role)!.id;
      const from = (address: string) => ({ from: { address, name: '' } });
      const reported = newSummary(inbox, idOf('screened'), 1, from('alerts@bank.test'));
      await h().messages.upsertMany([
        reported,
        newSummary(inbox, idOf('spam'), 2, from('other@bank.test')),
        newSummary(inbox, inboxFolder, 3, from('someone@notbank.test')),
        newSummary(inbox, inboxFolder, 4, from('x@bank_test.example')),
      ]);
      const keeps = (f: { address: string } | { domain: string }, inboxes = [inbox]) =>
        h().messages.keepsMailFrom(inboxes, f, reported.id);
      // Only the reported message and one in Spam: nothing kept; a look-alike domain is not under it.
      expect(await keeps({ domain: 'bank.test' })).toBe(false);
      expect(await keeps({ address: 'alerts@bank.test' })).toBe(false);
      // '_' is a character of the domain, not LIKE's wildcard.
      expect(await keeps({ domain: 'bankxtest.example' })).toBe(false);
      expect(await keeps({ domain: 'bank_test.example' })).toBe(true);
      const statement = newSummary(inbox, archive, 5, from('Statements@Mail.Bank.test'));
      await h().messages.upsertMany([statement]);
      expect(await keeps({ domain: 'bank.test' })).toBe(true);
      expect(await keeps({ domain: 'BANK.test' })).toBe(true);
      expect(await keeps({ address: 'alerts@bank.test' })).toBe(false);
      expect(await keeps({ address: 'statements@mail.bank.test' })).toBe(true);
      expect(await keeps({ domain: 'bank.test' }, [])).toBe(false);
      const other = await seedInbox(h());
      expect(await keeps({ domain: 'bank.test' }, [other])).toBe(false);
    });

    it('finds several messages of a folder by their refs, in the order asked', async () => {
      const { inbox, inboxFolder, archive: archiveFolder } = await setup(h());
      const a = newSummary(inbox, inboxFolder, 1);
      const b = newSummary(inbox, inboxFolder, 2);
      const elsewhere = newSummary(inbox, archiveFolder, 3);
      await h().messages.upsertMany([a, b, elsewhere]);
      expect(
        await h().messages.findByRefs(inboxFolder, [
          b.providerRef,
          'nope',
          elsewhere.providerRef,
          a.providerRef,
        ]),
      ).toEqual([b, a]);
      expect(await h().messages.findByRefs(inboxFolder, [])).toEqual([]);
    });

    it('finds a message of a folder by its Message-ID header', async () => {
      const { inbox, inboxFolder, archive: archiveFolder } = await setup(h());
      const a = newSummary(inbox, inboxFolder, 1, { internetMessageId: '<same@example.test>' });
      const b = newSummary(inbox, archiveFolder, 2, { internetMessageId: '<same@example.test>' });
      await h().messages.upsertMany([a, b]);
      expect(await h().messages.findByInternetId(archiveFolder, '<same@example.test>')).toEqual(b);
      expect(await h().messages.findByInternetId(inboxFolder, '<same@example.test>')).toEqual(a);
      expect(await h().messages.findByInternetId(inboxFolder, '<other@example.test>')).toBeUndefined();
    });

    it('pages newest first with no gaps or duplicates, and counts the total', async () => {
      const { inbox, inboxFolder } = await setup(h());
      const all = Array.from({ length: 1234 }, (_, n) => newSummary(inbox, inboxFolder, n + 1));
      await h().messages.upsertMany(all);
      const seen: string[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await h().messages.list(inbox, { folderId: inboxFolder, limit: 200, offset });
        expect(page.total).toBe(1234);
        seen.push(...page.items.map((m) => m.id));
        if (page.items.length < 200) break;
      }
      expect(seen).toHaveLength(1234);
      expect(new Set(seen).size).toBe(1234);
      const first = await h().messages.list(inbox, { folderId: inboxFolder, limit: 3, offset: 0 });
      expect(first.items.map((m) => m.position)).toEqual([1234, 1233, 1232]);
    });

    it('filters by unread, sender and a literal case-insensitive substring', async () => {
      const { inbox, inboxFolder } = await setup(h());
      await h().messages.upsertMany([
        newSummary(inbox, inboxFolder, 1, { subject: 'Invoice 100% PAID', unread: true }),
        newSummary(inbox, inboxFolder, 2, { subject: 'invoice_draft', unread: false }),
        newSummary(inbox, inboxFolder, 3, { subject: 'Hello', snippet: 'about the INVOICE', unread: true }),
        newSummary(inbox, inboxFolder, 4, {
          subject: 'Lunch',
          from: { address: 'Chef@Example.test', name: 'Chef' },
        }),
      ]);
      const subjects = async (q: Parameters<MessageStore['list']>[1]) =>
        (await h().messages.list(inbox, q)).items.map((m) => m.subject).sort();
      expect(await subjects({ text: 'invoice', limit: 50, offset: 0 })).toEqual([
        'Hello',
        'Invoice 100% PAID',
        'invoice_draft',
      ]);
      expect(await subjects({ text: '100%', limit: 50, offset: 0 })).toEqual(['Invoice 100% PAID']);
      // '%' and '_' are literals, not wildcards.
      expect(await subjects({ text: 'invoic_', limit: 50, offset: 0 })).toEqual([]);
      expect(await subjects({ text: 'inv%paid', limit: 50, offset: 0 })).toEqual([]);
      expect(await subjects({ text: 'invoice', unreadOnly: true, limit: 50, offset: 0 })).toEqual([
        'Hello',
        'Invoice 100% PAID',
      ]);
      expect(await subjects({ fromAddress: 'chef@example.TEST', limit: 50, offset: 0 })).toEqual(['Lunch']);
      expect(await subjects({ text: 'chef', limit: 50, offset: 0 })).toEqual(['Lunch']);
    });

    it('matches text whatever its accents, case and compatibility forms', async () => {
      const { inbox, inboxFolder } = await setup(h());
      await h().messages.upsertMany([
        newSummary(inbox, inboxFolder, 1, {
          subject: 'Café crème',
          from: { address: 'jose@example.test', name: 'José Müller' },
        }),
        newSummary(inbox, inboxFolder, 2, { subject: 'Ｑ３ ﬁnance', snippet: 'Straße' }),
        newSummary(inbox, inboxFolder, 3, { subject: 'Cafeteria' }),
      ]);
      const subjects = async (text: string) =>
        (await h().messages.list(inbox, { text, limit: 50, offset: 0 })).items.map((m) => m.subject).sort();
      expect(await subjects('cafe')).toEqual(['Cafeteria', 'Café crème']);
      expect(await subjects('CAFÉ CRÈME')).toEqual(['Café crème']);
      expect(await subjects('jose muller')).toEqual(['Café crème']);
      expect(await subjects('josé')).toEqual(['Café crème']);
      expect(await subjects('q3 finance')).toEqual(['Ｑ３ ﬁnance']);
      expect(await subjects('straße')).toEqual(['Ｑ３ ﬁnance']);
      expect(
        (
          await h().messages.headlines(inbox, {
            folderIds: [inboxFolder],
            text: 'muller',
            limit: 5,
            offset: 0,
          })
        ).total,
      ).toBe(1);
    });

    it('restricts to a folder set; an empty set matches nothing', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      await h().messages.upsertMany([newSummary(inbox, inboxFolder, 1), newSummary(inbox, archive, 2)]);
      expect((await h().messages.list(inbox, { folderIds: [archive], limit: 50, offset: 0 })).total).toBe(1);
      expect((await h().messages.list(inbox, { folderIds: [], limit: 50, offset: 0 })).total).toBe(0);
      expect((await h().messages.list(inbox, { limit: 50, offset: 0 })).total).toBe(2);
    });

    it('filters by thread, across folders and together with the other filters', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const other = await setup(h());
      await h().messages.upsertMany([
        newSummary(inbox, inboxFolder, 1, { threadId: 'thr_a', unread: true }),
        newSummary(inbox, archive, 2, { threadId: 'thr_a', unread: false }),
        newSummary(inbox, inboxFolder, 3, { threadId: 'thr_b' }),
        newSummary(inbox, inboxFolder, 4, { threadId: null }),
        newSummary(other.inbox, other.inboxFolder, 5, { threadId: 'thr_a' }),
      ]);
      const positions = async (q: Omit<Parameters<MessageStore['list']>[1], 'limit' | 'offset'>) => {
        const page = await h().messages.list(inbox, { ...q, limit: 50, offset: 0 });
        return { total: page.total, positions: page.items.map((m) => m.position) };
      };
      expect(await positions({ threadId: 'thr_a' })).toEqual({ total: 2, positions: [2, 1] });
      expect(await positions({ threadId: 'thr_a', folderId: archive })).toEqual({ total: 1, positions: [2] });
      expect(await positions({ threadId: 'thr_a', unreadOnly: true })).toEqual({ total: 1, positions: [1] });
      expect(await positions({ threadId: 'thr_b' })).toEqual({ total: 1, positions: [3] });
      expect(await positions({ threadId: 'thr_missing' })).toEqual({ total: 0, positions: [] });
    });

    it('headlines: the same pages as list, in one order, with the total on every page and past the end', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const other = await setup(h());
      const sameDate = new Date('2026-01-01T00:00:00Z');
      await h().messages.upsertMany([
        ...Array.from({ length: 60 }, (_, n) =>
          newSummary(inbox, n % 3 === 0 ? archive : inboxFolder, n + 1, {
            unread: n % 2 === 0,
            subject: n % 5 === 0 ? `Invoice 100% #${String(n)}` : `Note ${String(n)}`,
            // ties on date are broken by position, then id
            ...(n < 10 && { date: sameDate }),
            ...(n === 7 && { listId: '<news.example>' }),
          }),
        ),
        newSummary(other.inbox, other.inboxFolder, 1, { subject: 'Invoice 100% elsewhere' }),
      ]);
      const queries = [
        { folderIds: [inboxFolder] },
        { folderIds: [inboxFolder, archive] },
        { folderIds: [archive, inboxFolder], unreadOnly: true },
        { folderIds: [inboxFolder, archive], text: 'INVOICE 100%' },
        { folderIds: [inboxFolder], text: 'invoice', unreadOnly: true },
        { folderIds: [inboxFolder], text: 'nothing like this' },
      ];
      for (const q of queries)
        for (const [limit, offset] of [
          [5, 0],
          [7, 14],
          [50, 0],
          [200, 0],
          [10, 55],
          [10, 500],
        ] as const) {
          const list = await h().messages.list(inbox, { ...q, limit, offset });
          const page = await h().messages.headlines(inbox, { ...q, limit, offset });
          expect(page.total, JSON.stringify({ q, limit, offset })).toBe(list.total);
          expect(page.items).toEqual(
            list.items.map((m) => ({
              id: m.id,
              folderId: m.folderId,
              threadId: m.threadId,
              subject: m.subject,
              from: m.from,
              snippet: m.snippet,
              date: m.date,
              unread: m.unread,
              starred: m.starred,
              labels: m.labels,
              hasAttachments: m.hasAttachments,
              isList: m.listId !== null || m.listUnsubscribe !== null,
            })),
          );
        }
      expect((await h().messages.headlines(inbox, { folderIds: [], limit: 5, offset: 0 })).total).toBe(0);
      expect(
        (await h().messages.headlines(other.inbox, { folderIds: [inboxFolder], limit: 5, offset: 0 })).total,
      ).toBe(0);
    });

    it("getWithSelectedPage: the inbox, its folders and the selected folders' page, as each read alone gives them", async () => {
      const acct = await seedAccount(h().accounts);
      const stranger = await seedAccount(h().accounts);
      const made = newInbox(acct);
      await h().inboxes.create(made);
      const inbox = made.id;
      const read = (q: SelectedPageQuery, account = acct) =>
        h().inboxes.getWithSelectedPage(account, inbox, q);
      // No folders yet: the inbox alone, and an empty page.
      expect(await read({ limit: 5, offset: 0 })).toEqual({
        inbox: await h().inboxes.get(acct, inbox),
        folders: [],
        page: { items: [], total: 0 },
      });
      const folders = await h().folders.replaceAll(
        inbox,
        [
          { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
          { path: 'Archive', name: 'Archive', canonical: 'archive' },
          { path: 'Later', name: 'Later', canonical: null },
          { path: 'Zed', name: 'Zed', canonical: null },
        ],
        newFolderId,
      );
      const id = (path: string) => folders.find((f) => f.path === path)!.id;
      const other = await setup(h());
      const sameDate = new Date('2026-01-01T00:00:00Z');
      await h().messages.upsertMany([
        ...Array.from({ length: 60 }, (_, n) =>
          newSummary(inbox, id(['INBOX', 'Archive', 'Later', 'Zed'][n % 4]!), n + 1, {
            unread: n % 3 === 0,
            subject: n % 5 === 0 ? `Invoice 100% #${String(n)}` : `Note ${String(n)}`,
            ...(n < 12 && { date: sameDate }),
            ...(n === 8 && { listUnsubscribe: '<https://news.example/u>' }),
          }),
        ),
        newSummary(other.inbox, other.inboxFolder, 1, { subject: 'Invoice 100% elsewhere' }),
      ]);
      const pages = [
        { limit: 5, offset: 0 },
        { limit: 7, offset: 14 },
        { limit: 200, offset: 0 },
        { limit: 10, offset: 25 },
        { limit: 10, offset: 500 },
        { limit: 5, offset: 0, unreadOnly: true },
        { limit: 50, offset: 3, text: 'INVOICE 100%' },
        { limit: 3, offset: 1, text: 'invoice', unreadOnly: true },
        { limit: 5, offset: 0, text: 'nothing like this' },
        { limit: 5, offset: 9, text: 'note' },
      ];
      for (const selected of [[], ['INBOX'], ['INBOX', 'Zed'], ['Archive', 'Later', 'INBOX', 'Zed']]) {
        await h().folders.setSelected(inbox, selected.map(id));
        const place = await h().inboxes.getWithFolders(acct, inbox);
        const scope = place!.folders.filter((f) => f.selected).map((f) => f.id);
        for (const q of pages) {
          const why = JSON.stringify({ selected, q });
          const page =
            scope.length === 0
              ? { items: [], total: 0 }
              : await h().messages.headlines(inbox, { ...q, folderIds: scope });
          expect(await read(q), why).toEqual({ ...place, page });
        }
      }
      expect(await read({ limit: 5, offset: 0 }, stranger)).toBeUndefined();
      expect(
        await h().inboxes.getWithSelectedPage(acct, other.inbox, { limit: 5, offset: 0 }),
      ).toBeUndefined();
    });

    it('getWithMessages and getMany: the inbox, its folders and the asked messages it holds, as each read alone gives them', async () => {
      const acct = await seedAccount(h().accounts);
      const stranger = await seedAccount(h().accounts);
      const made = newInbox(acct);
      await h().inboxes.create(made);
      const inbox = made.id;
      const folders = await h().folders.replaceAll(
        inbox,
        [
          { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
          { path: 'Archive', name: 'Archive', canonical: 'archive' },
          { path: 'Zed', name: 'Zed', canonical: null },
        ],
        newFolderId,
      );
      const mine = Array.from({ length: 30 }, (_, n) =>
        newSummary(inbox, folders[n % 3]!.id, n + 1, { labels: n % 4 === 0 ? ['x'] : [] }),
      );
      const other = await setup(h());
      const elsewhere = newSummary(other.inbox, other.inboxFolder, 1);
      await h().messages.upsertMany([...mine, elsewhere]);
      const unknown = newId('msg') as MessageId;
      const place = await h().inboxes.getWithFolders(acct, inbox);
      const byId = (ms: readonly MessageSummary[]) => [...ms].sort((a, b) => a.id.localeCompare(b.id));
      for (const ids of [
        [],
        [mine[0]!.id],
        [mine[1]!.id, mine[4]!.id, mine[4]!.id, unknown, elsewhere.id],
        mine.slice(0, 16).map((m) => m.id),
        mine.slice(0, 17).map((m) => m.id),
        [...mine.map((m) => m.id), elsewhere.id],
      ]) {
        const want = byId(mine.filter((m) => ids.includes(m.id)));
        const read = await h().inboxes.getWithMessages(acct, inbox, ids);
        expect(read && { ...read, messages: byId(read.messages) }, String(ids.length)).toEqual({
          ...place,
          messages: want,
        });
        expect(byId(await h().messages.getMany(inbox, ids))).toEqual(want);
        for (const m of want) expect(await h().messages.get(inbox, m.id)).toEqual(m);
      }
      expect(await h().inboxes.getWithMessages(stranger, inbox, [mine[0]!.id])).toBeUndefined();
      expect(await h().messages.getMany(other.inbox, [mine[0]!.id])).toEqual([]);
    });

    it('headlines: the total follows every write, by each path that changes the index', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const store = h().messages;
      // The total of each folder scope, with and without unreadOnly, must equal a count of the rows (list).
      const check = async (step: string) => {
        for (const folderIds of [[inboxFolder], [archive], [inboxFolder, archive]])
          for (const unreadOnly of [false, true]) {
            const q = { folderIds, ...(unreadOnly && { unreadOnly }) };
            const counted = (await store.list(inbox, { ...q, limit: 1, offset: 0 })).total;
            const page = await store.headlines(inbox, { ...q, limit: 3, offset: 0 });
            expect(page.total, `${step} ${JSON.stringify(q)}`).toBe(counted);
          }
      };
      const all = Array.from({ length: 40 }, (_, n) =>
        newSummary(inbox, n < 25 ? inboxFolder : archive, n + 1, { unread: n % 3 === 0 }),
      );
      await check('empty');
      await store.upsertMany(all);
      await check('inserted');
      // The same rows again, unchanged; then with unread flipped on some (an upsert's update path).
      await store.upsertMany(all);
      await check('upserted unchanged');
      await store.upsertMany(all.slice(0, 10).map((m) => ({ ...m, unread: !m.unread })));
      await check('upserted with flags changed');
      await store.updateFlags(inbox, all[11]!.id, { unread: !all[11]!.unread, starred: true, labels: ['x'] });
      await store.updateFlags(inbox, all[12]!.id, { unread: all[12]!.unread, starred: true, labels: [] });
      await check('updateFlags');
      await store.updateFlagsByRefs(inboxFolder, [
        { ref: '14', unread: true, starred: false, labels: [] },
        { ref: '15', unread: false, starred: false, labels: [] },
        { ref: '16', unread: false, starred: true, labels: ['y'] },
      ]);
      await check('updateFlagsByRefs');
      await store.relocate(inbox, all[1]!.id, archive, '901', 901);
      await store.relocate(inbox, all[30]!.id, inboxFolder, '902', 902);
      await store.relocate(inbox, all[31]!.id, archive, '903', 903); // within its folder
      await check('relocate');
      await store.removeByRefs(inboxFolder, ['3', '4', '5', '902', 'missing']);
      await store.removeByRefs(archive, ['26']);
      await check('removeByRefs');
      // A folder that goes away takes its messages (and its count) with it; a new one starts at nothing.
      await h().folders.replaceAll(
        inbox,
        [
          { path: 'INBOX', name: 'Inbox', canonical: 'inbox' },
          { path: 'Later', name: 'Later', canonical: null },
        ],
        newFolderId,
      );
      const later = (await h().folders.list(inbox)).find((f) => f.path === 'Later')!.id;
      expect((await store.headlines(inbox, { folderIds: [later], limit: 3, offset: 0 })).total).toBe(0);
      await store.upsertMany([newSummary(inbox, later, 500, { unread: true })]);
      expect(
        (
          await store.headlines(inbox, {
            folderIds: [later, inboxFolder],
            unreadOnly: true,
            limit: 3,
            offset: 0,
          })
        ).total,
      ).toBe(
        (await store.list(inbox, { folderIds: [later, inboxFolder], unreadOnly: true, limit: 1, offset: 0 }))
          .total,
      );
      await check('folder removed');
    });

    it('upsert keeps the id and updates flags; updateFlags and relocate keep it too', async () => {
      const { inbox, inboxFolder, archive } = await setup(h());
      const m = newSummary(inbox, inboxFolder, 7, { unread: true });
      await h().messages.upsertMany([m]);
      await h().messages.upsertMany([{ ...m, id: newId('msg') as MessageId, unread: false, labels: ['x'] }]);
      expect(await h().messages.get(inbox, m.id)).toMatchObject({ unread: false, labels: ['x'] });
      expect(await h().messages.updateFlags(inbox, m.id, { unread: true, starred: true, labels: [] })).toBe(
        true,
      );
      expect(await h().messages.relocate(inbox, m.id, archive, '55', 55)).toBe(true);
      expect(await h().messages.get(inbox, m.id)).toMatchObject({
        folderId: archive,
        providerRef: '55',
        unread: true,
        starred: true,
      });
    });

    it('relocates onto a ref its new folder already indexes: that stale row of the same message gives way', async () => {
      // Gmail and Graph keep a message's ref in every folder. Another client moved it to Archive and a sync of
      // Archive indexed it there before a sync of the inbox folder removed it here; then an agent archived it.
      const { inbox, inboxFolder, archive } = await setup(h());
      const here = newSummary(inbox, inboxFolder, 77);
      const stale = { ...newSummary(inbox, archive, 77), providerRef: here.providerRef };
      const other = newSummary(inbox, archive, 78);
      await h().messages.upsertMany([here, stale, other]);
      expect(await h().messages.relocate(inbox, here.id, archive, here.providerRef, 77)).toBe(true);
      expect(await h().messages.get(inbox, here.id)).toMatchObject({
        folderId: archive,
        providerRef: here.providerRef,
      });
      expect(await h().messages.get(inbox, stale.id)).toBeUndefined();
      expect(await h().messages.get(inbox, other.id)).toBeDefined();
      expect((await h().messages.listRefs(archive)).map((k) => k.ref).sort()).toEqual(
        [here.providerRef, other.providerRef].sort(),
      );
    });

    it('scopes by inbox: another inbox cannot read or change a message', async () => {
      const { inbox, inboxFolder } = await setup(h());
      const other = await seedInbox(h());
      const m = newSummary(inbox, inboxFolder, 1);
      await h().messages.upsertMany([m]);
      expect(await h().messages.get(other, m.id)).toBeUndefined();
      expect(await h().messages.updateFlags(other, m.id, { unread: false, starred: true, labels: [] })).toBe(
        false,
      );
      expect((await h().messages.list(other, { limit: 50, offset: 0 })).total).toBe(0);
    });

    it('removes by refs and lists the refs left, each with its Message-ID', async () => {
      const { inbox, inboxFolder } = await setup(h());
      const five = Array.from({ length: 5 }, (_, n) => newSummary(inbox, inboxFolder, n + 1));
      await h().messages.upsertMany(five);
      expect(await h().messages.removeByRefs(inboxFolder, ['2', '4', '99'])).toBe(2);
      const left = await h().messages.listRefs(inboxFolder);
      expect(left.map((k) => k.ref).sort()).toEqual(['1', '3', '5']);
      for (const k of left)
        expect(k.internetMessageId).toBe(five.find((m) => m.providerRef === k.ref)?.internetMessageId);
    });
  });
}
