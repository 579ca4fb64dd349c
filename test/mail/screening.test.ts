import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import {
  dovecotBackend,
  gmailBackend,
  graphBackend,
  OUTSIDE_DOMAIN,
  PLAIN_IMAP_SERVER,
  START,
  type Backend,
  type MailboxRow,
} from '../support/mail-backends.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';

// Junk screening (issue 18) on every kind of mailbox the service changes: a Screened place the service makes at the
// provider (an IMAP folder, a Gmail label, a Microsoft 365 mail folder), the unsure mark (a keyword, a label, a
// category), undo, rescue, report, and the blocklist applied to mail that arrives later — each checked in the
// mailbox itself, read past the service. test/imap/screening.test.ts holds the refusals and the IMAP details.

/** Where a message is, in words the three mailboxes share, and what marks it carries. */
type Place = { where: string; marks: string[] };

const MAILBOXES: [string, () => Promise<Backend>, (be: Backend, row: MailboxRow) => Place][] = [
  [
    'Dovecot',
    () => dovecotBackend(),
    (_, r) => ({ where: { INBOX: 'inbox', Junk: 'spam' }[r.path] ?? r.path, marks: r.flags }),
  ],
  [
    // Courier's layout on the plainest server: Screened is made as INBOX.Screened, found by its name.
    'folders under INBOX on a plain IMAP4rev1 server',
    () => dovecotBackend({ ...PLAIN_IMAP_SERVER, underInbox: true }),
    (be, r) => ({
      where: { INBOX: 'inbox', Junk: 'spam' }[be.placeName(r.path)] ?? be.placeName(r.path),
      marks: r.flags,
    }),
  ],
  [
    'Gmail',
    () => gmailBackend(),
    // The rig's paths are the system labels, ARCHIVE, and the Screened label (mail in no system label with it).
    (_, r) => ({
      where:
        { INBOX: 'inbox', SPAM: 'spam', TRASH: 'TRASH', ARCHIVE: 'ARCHIVE', SENT: 'SENT', DRAFT: 'DRAFT' }[
          r.path
        ] ?? 'Screened',
      marks: r.flags.filter((f) => f !== 'Screened'),
    }),
  ],
  [
    'Microsoft 365',
    () => graphBackend(),
    (be, r) => ({
      where: { Inbox: 'inbox', 'Junk Email': 'spam' }[be.placeName(r.path)] ?? be.placeName(r.path),
      marks: r.flags,
    }),
  ],
];

const VIP = 'vip@people.example.test';
const GOOD = 'colleague@people.example.test';
const stranger = (i: number) => `stranger${String(i)}@${OUTSIDE_DOMAIN}`;
/** A sender of a domain with no one the person knows, and none of the person's own inboxes, at it. */
const PROMO = 'promo@junk-deals.test';
const LATER = 'billing@mail.junk-deals.test';
/** A stranger whose mail arrives after Screened was deleted. */
const LATE = `late@${OUTSIDE_DOMAIN}`;
const GONE = `gone@${OUTSIDE_DOMAIN}`;
/** A bank the person gets mail from, whose From a forger wrote: its genuine mail must not be screened because of it. */
const BANK = 'alerts@real-bank.test';
const BANK_BEFORE = 'statements@real-bank.test';
const BANK_LATER = 'offers@real-bank.test';
/** What the person's own provider writes above a message: its DMARC verdict on the From. */
const dmarc = (result: 'pass' | 'fail', address: string) => ({
  'Authentication-Results': `mx.person-provider.test; spf=${result} smtp.mailfrom=${address.split('@')[1] ?? ''}; dmarc=${result} (p=NONE) header.from=${address.split('@')[1] ?? ''}`,
});
const mailFrom = (address: string, n: number, headers?: Record<string, string>) =>
  buildMessage({
    from: { address, name: address.split('@')[0] ?? '' },
    to: [{ address: 'someone@example.test' }],
    subject: `Deal ${String(n)}`,
    date: new Date(START.getTime() + n * 60_000),
    messageId: `<deal${String(n)}@screening.test>`,
    text: 'Buy now.',
    ...(headers !== undefined && { headers }),
  });

describe.each(MAILBOXES)('junk screening (%s)', (name, start, placeOf) => {
  let be: Backend;
  let call: Backend['agent']['call'];
  let inboxId: string;
  type Offered = { inboxId: string; messageId: string; from: { address: string } };
  let offered: Offered[] = [];

  /** Message-ID → From address, from the index (the mailbox's rows name messages by Message-ID). */
  const sendersByMessageId = async () =>
    new Map(
      (
        await be.app.db.kysely
          .selectFrom('messages')
          .select(['internet_message_id', 'from_address'])
          .where('inbox_id', '=', inboxId)
          .execute()
      ).map((r) => [r.internet_message_id, r.from_address]),
    );
  /** Every message of the mailbox by sender address (Message-ID → From, from the index), with its place. */
  const truth = async () => {
    const senders = await sendersByMessageId();
    return (await be.mailbox()).map((r) => ({
      from: senders.get(r.messageId ?? null) ?? r.messageId ?? '',
      ...placeOf(be, r),
    }));
  };
  /** The mailbox's row of the one message from `address`. */
  const rowOf = async (address: string) => {
    const senders = await sendersByMessageId();
    const rows = (await be.mailbox()).filter((r) => senders.get(r.messageId ?? null) === address);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };
  const placesOf = async (address: string) =>
    (await truth()).filter((t) => t.from === address).map((t) => t.where);
  const screen = async () =>
    expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as Offered[];
  const of = (address: string) => offered.filter((m) => m.from.address === address);
  const target = (m: Offered) => ({ inboxId: m.inboxId, messageId: m.messageId });

  beforeAll(async () => {
    be = await start();
    ({ call } = be.agent);
    inboxId = be.inboxId;
    await be.outside!.deliver(mailFrom(PROMO, 1));
    expectToolOk(await call('sync_inbox', { inboxId }));
    expectToolOk(await call('add_vip', { emails: [VIP] }));
    expectToolOk(
      await call('update_triage_profile', { patch: { defaults: { junk: { knownGoodSenders: [GOOD] } } } }),
    );
  }, 300_000);

  afterAll(async () => {
    await be.close();
  });

  it('junk goes to a Screened place the service makes, unsure is marked, fine stays — and undo puts it all back', async () => {
    offered = await screen();
    const addresses = new Set(offered.map((m) => m.from.address));
    expect(addresses).not.toContain(VIP);
    expect(addresses).not.toContain(GOOD);
    expect(offered.length).toBeGreaterThan(10);
    const before = await truth();
    const verdicts = [
      ...[0, 1, 2, 3].flatMap((i) => of(stranger(i))).map((m) => ({ ...target(m), verdict: 'junk' })),
      ...of('person0@people.example.test').map((m) => ({ ...target(m), verdict: 'unsure' })),
      ...of('person1@people.example.test').map((m) => ({ ...target(m), verdict: 'fine' })),
    ];
    expect(verdicts).toHaveLength(6);
    const done = expectToolOk(await call('confirm_screening', { verdicts }));
    expect(done['applied']).toHaveLength(6);
    for (const i of [0, 1, 2, 3]) expect(await placesOf(stranger(i))).toEqual(['Screened']);
    const unsure = (await truth()).find((t) => t.from === 'person0@people.example.test');
    expect(unsure).toEqual({
      from: 'person0@people.example.test',
      where: 'inbox',
      marks: ['Screening-Unsure'],
    });
    expect(await placesOf('person1@people.example.test')).toEqual(['inbox']);
    // What the person reviews says the same.
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    expect((review['rows'] as unknown[]).length).toBe(4);

    const undone = expectToolOk(await call('undo_action', { undoId: done['undoId'] }));
    // The unsure mark was a label the pass made on Gmail: it goes from the person's label list with the pass (0146).
    expect(undone['labelsRemoved']).toEqual(name === 'Gmail' ? ['Screening-Unsure'] : undefined);
    const sorted = (rows: { from: string; where: string; marks: string[] }[]) =>
      rows.map((r) => `${r.from} ${r.where} ${[...r.marks].sort().join(',')}`).sort();
    expect(sorted(await truth())).toEqual(sorted(before));
  });

  it('review, rescue (the sender becomes known-good), report (spam, the domain blocked), and later mail from it screened on sync', async () => {
    offered = await screen();
    const verdicts = [...of(stranger(4)), ...of(PROMO)].map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(2);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    const rows = review['rows'] as { id: string; sender: { address: string } }[];
    expect(rows.map((r) => r.sender.address).sort()).toEqual([PROMO, stranger(4)]);
    const row = (address: string) => rows.find((r) => r.sender.address === address)!.id;

    const rescued = expectToolOk(await call('rescue_screened', { inboxId, id: row(stranger(4)) }));
    expect(rescued['knownGood']).toBe(true);
    expect(await placesOf(stranger(4))).toEqual(['inbox']);

    const reported = expectToolOk(await call('report_screened', { inboxId, id: row(PROMO) }));
    expect(reported['blocked']).toEqual({ kind: 'domain', value: 'junk-deals.test' });
    expect(await placesOf(PROMO)).toEqual(['spam']);

    await be.outside!.deliver(mailFrom(LATER, 2));
    expectToolOk(await call('sync_inbox', { inboxId }));
    expect(await placesOf(LATER)).toEqual(['Screened']);
    const again = expectToolOk(await call('review_screened', { inbox: inboxId }));
    const blocked = (again['rows'] as { id: string; sender: { address: string }; source: string }[]).find(
      (r) => r.sender.address === LATER,
    );
    expect(blocked?.source).toBe('blocklist');
    // Never deleted: rescuing it brings it back.
    expectToolOk(await call('rescue_screened', { inboxId, id: blocked!.id }));
    expect(await placesOf(LATER)).toEqual(['inbox']);
  });

  it('reporting mail whose From failed DMARC at the person’s provider, from a domain the person gets mail from, blocks nothing: the real sender’s later mail stays in the inbox', async () => {
    await be.outside!.deliver(mailFrom(BANK_BEFORE, 29, dmarc('pass', BANK_BEFORE)));
    await be.outside!.deliver(mailFrom(BANK, 30, dmarc('fail', BANK)));
    expectToolOk(await call('sync_inbox', { inboxId }));
    offered = await screen();
    const verdicts = of(BANK).map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(1);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const rows = expectToolOk(await call('review_screened', { inbox: inboxId }))['rows'] as {
      id: string;
      sender: { address: string };
    }[];
    const row = rows.find((r) => r.sender.address === BANK)!;
    const reported = expectToolOk(await call('report_screened', { inboxId, id: row.id }));
    expect(reported['blocked']).toBeNull();
    expect(reported['notBlockedBecause']).toBe('sender_failed_dmarc');
    expect(await placesOf(BANK)).toEqual(['spam']);
    const profile = expectToolOk(await call('get_triage_profile', {}));
    expect(JSON.stringify(profile)).not.toContain('real-bank.test');

    await be.outside!.deliver(mailFrom(BANK_LATER, 31, dmarc('pass', BANK_LATER)));
    expectToolOk(await call('sync_inbox', { inboxId }));
    expect(await placesOf(BANK_LATER)).toEqual(['inbox']);
  });

  it('mail whose From names a VIP or a known-good sender but failed DMARC is offered as an impersonation and can be screened; genuine mail from them is not offered', async () => {
    await be.outside!.deliver(mailFrom(VIP, 32, dmarc('fail', VIP)));
    await be.outside!.deliver(mailFrom(GOOD, 33, dmarc('fail', GOOD)));
    await be.outside!.deliver(mailFrom(VIP, 34, dmarc('pass', VIP)));
    expectToolOk(await call('sync_inbox', { inboxId }));
    const batch = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as (Offered & {
      subject: string;
      impersonates: string | null;
      authentication: { dmarc: string | null };
    })[];
    const claimed = batch.filter((m) => m.from.address === VIP || m.from.address === GOOD);
    expect(claimed.map((m) => [m.subject, m.impersonates, m.authentication.dmarc]).sort()).toEqual([
      ['Deal 32', 'vip', 'fail'],
      ['Deal 33', 'known_good', 'fail'],
    ]);
    expect(batch.filter((m) => m.impersonates === null).map((m) => m.from.address)).not.toContain(VIP);
    // The genuine messages were read once and settled: not read again by the next batch.
    const settled = await be.app.db.kysely
      .selectFrom('screenings')
      .select(['verdict', 'source'])
      .where('inbox_id', '=', inboxId)
      .where('sender_address', 'in', [VIP, GOOD])
      .where('source', '=', 'exempt')
      .execute();
    expect(settled.length).toBe(6 + 4 + 1);
    expect(new Set(settled.map((r) => r.verdict))).toEqual(new Set(['fine']));

    const forgedVip = claimed.find((m) => m.impersonates === 'vip')!;
    // Reading it says so too, to an agent that meets it outside screening.
    const read = expectToolOk(await call('get_message', target(forgedVip)));
    expect(read['authentication']).toEqual({ spf: 'fail', dkim: null, dmarc: 'fail' });
    const done = expectToolOk(
      await call('confirm_screening', { verdicts: [{ ...target(forgedVip), verdict: 'junk' }] }),
    );
    expect(done['applied']).toHaveLength(1);
    expect(done['skipped']).toEqual([]);
    const vipPlaces = (await truth()).filter((t) => t.from === VIP).map((t) => t.where);
    expect(vipPlaces.filter((w) => w === 'Screened')).toHaveLength(1);
    expect(vipPlaces.filter((w) => w === 'inbox')).toHaveLength(6 + 1);
    // Put back, for the cases below.
    expectToolOk(await call('undo_action', { undoId: done['undoId'] }));
    expect((await truth()).filter((t) => t.from === VIP && t.where === 'Screened')).toEqual([]);
  });

  it('a VIP’s message the mailbox no longer gives (deleted elsewhere before it was read) is settled, not read at every call, and not offered', async () => {
    await be.outside!.deliver(mailFrom(VIP, 35, dmarc('fail', VIP)));
    expectToolOk(await call('sync_inbox', { inboxId }));
    const id = (
      await be.app.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('inbox_id', '=', inboxId)
        .where('subject', '=', 'Deal 35')
        .executeTakeFirstOrThrow()
    ).id;
    // Gone from the mailbox, still in the index: the check for forgery cannot read it.
    const rows = (await be.mailbox()).filter((r) => r.messageId === '<deal35@screening.test>');
    expect(rows).toHaveLength(1);
    await be.outside!.remove(rows[0]!);
    const batch = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as Offered[];
    expect(batch.map((m) => m.messageId)).not.toContain(id);
    const row = await be.app.db.kysely
      .selectFrom('screenings')
      .select(['verdict', 'source'])
      .where('message_id', '=', id)
      .executeTakeFirst();
    expect(row).toEqual({ verdict: 'fine', source: 'exempt' });
    expectToolOk(await call('sync_inbox', { inboxId }));
  });

  it('what the person does in Screened from another client (moved back, deleted) leaves the review after a sync', async () => {
    offered = await screen();
    const verdicts = [6, 7].flatMap((i) => of(stranger(i))).map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(2);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const waiting = async () =>
      (
        expectToolOk(await call('review_screened', { inbox: inboxId }))['rows'] as {
          sender: { address: string };
        }[]
      )
        .map((r) => r.sender.address)
        .sort();
    expect(await waiting()).toEqual([stranger(6), stranger(7)]);
    // Moved from the Screened view (on Gmail, a message with no system label: that takes the Screened label off).
    const screenedPath = (await be.app.stores.folders.list(inboxId as InboxId)).find(
      (f) => f.canonical === 'screened',
    )!.path;
    await be.outside!.move({ ...(await rowOf(stranger(6))), path: screenedPath }, 'inbox');
    await be.outside!.remove(await rowOf(stranger(7)));
    expectToolOk(await call('sync_inbox', { inboxId }));
    expect(await waiting()).toEqual([]);
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    expect(review['counts']).toMatchObject({ waiting: 0 });
  });

  it('screened mail is in Screened only: an agent reading Archive does not meet it there', async () => {
    offered = await screen();
    const verdicts = of(stranger(5)).map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(1);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const selected = (await be.app.stores.folders.list(inboxId as InboxId)).filter((f) => f.selected);
    expectToolOk(await call('sync_inbox', { inboxId, folders: ['inbox', 'archive', 'screened'] }));
    const senders = async (folder: string) =>
      (
        expectToolOk(await call('list_messages', { inboxId, folder, limit: 100 }))['messages'] as {
          from: { address: string };
        }[]
      ).map((m) => m.from.address);
    expect(await senders('screened')).toEqual([stranger(5)]);
    expect(await senders('archive')).not.toContain(stranger(5));
    // Rescued, it leaves Screened empty for the cases below.
    const row = (
      expectToolOk(await call('review_screened', { inbox: inboxId }))['rows'] as {
        id: string;
        sender: { address: string };
      }[]
    ).find((r) => r.sender.address === stranger(5));
    expectToolOk(await call('rescue_screened', { inboxId, id: row!.id }));
    expect(await placesOf(stranger(5))).toEqual(['inbox']);
    expectToolOk(await call('sync_inbox', { inboxId, folders: selected.map((f) => f.canonical ?? f.path) }));
  });

  it('a Screened place the person deleted in another client is made again by the next junk verdict', async () => {
    const screenedPath = async () =>
      (await be.app.stores.folders.list(inboxId as InboxId)).find((f) => f.canonical === 'screened')?.path;
    const before = await screenedPath();
    expect(before).toBeDefined();
    await be.outside!.deliver(mailFrom(LATE, 40));
    expectToolOk(await call('sync_inbox', { inboxId }));
    offered = await screen();
    // Empty since the last case; deleted where the service does not see it (no sync since: its folders still list it).
    await be.outside!.deleteFolder(before!);
    const verdicts = of(LATE).map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(1);
    const confirmed = expectToolOk(await call('confirm_screening', { verdicts }));
    expect(confirmed['skipped']).toEqual([]);
    expect(await placesOf(LATE)).toEqual(['Screened']);
    const rows = expectToolOk(await call('review_screened', { inbox: inboxId }))['rows'] as {
      sender: { address: string };
    }[];
    expect(rows.map((r) => r.sender.address)).toEqual([LATE]);
    // Undone, it is back in the inbox; the Screened place made again stays.
    expectToolOk(await call('undo_action', { undoId: confirmed['undoId'] }));
    expect(await placesOf(LATE)).toEqual(['inbox']);
  });

  it('rescuing mail whose Screened place the person deleted says it is no longer in Screened', async () => {
    await be.outside!.deliver(mailFrom(GONE, 41));
    expectToolOk(await call('sync_inbox', { inboxId }));
    offered = await screen();
    const verdicts = of(GONE).map((m) => ({ ...target(m), verdict: 'junk' }));
    expect(verdicts).toHaveLength(1);
    expectToolOk(await call('confirm_screening', { verdicts }));
    const row = (
      expectToolOk(await call('review_screened', { inbox: inboxId }))['rows'] as {
        id: string;
        sender: { address: string };
      }[]
    ).find((r) => r.sender.address === GONE);
    const screenedPath = (await be.app.stores.folders.list(inboxId as InboxId)).find(
      (f) => f.canonical === 'screened',
    )!.path;
    // With the message in it: IMAP deletes it too, Gmail leaves it archived, Microsoft moves it to Deleted Items.
    await be.outside!.deleteFolder(screenedPath);
    expectToolError(await call('rescue_screened', { inboxId, id: row!.id }), 'screened_not_found');
    expect(await placesOf(GONE)).not.toContain('inbox');
  });

  it('a stranger showing the name a VIP or a known-good sender uses, or a name written as another address, is offered saying so (decisions 0107, 0118)', async () => {
    const named = (address: string, name: string, n: number) =>
      buildMessage({
        from: { address, name },
        to: [{ address: 'someone@example.test' }],
        subject: `Named ${String(n)}`,
        date: new Date(START.getTime() + n * 60_000),
        messageId: `<named${String(n)}@screening.test>`,
        text: 'Can you buy four gift cards for a client? Keep it between us.',
      });
    // What the trusted senders are called, as their own mail shows.
    await be.outside!.deliver(named(VIP, 'Vera Important', 50));
    await be.outside!.deliver(named(GOOD, 'Colin League', 51));
    const CEO = `vera.important.ceo@${OUTSIDE_DOMAIN}`;
    const COLIN = `colin.league@${OUTSIDE_DOMAIN}`;
    const POSER = `billing@${OUTSIDE_DOMAIN}`;
    const PLAIN = `someone.else@${OUTSIDE_DOMAIN}`;
    await be.outside!.deliver(named(CEO, 'Vera Important', 52));
    await be.outside!.deliver(named(COLIN, 'Colin League', 53));
    await be.outside!.deliver(named(POSER, VIP, 54));
    await be.outside!.deliver(named(PLAIN, 'Someone Else', 55));
    // The same names as a reader sees them, not as they are spelled (decision 0118): a Cyrillic е, a zero, added words;
    // another case and order.
    const LOOKALIKE = `v.important@${OUTSIDE_DOMAIN}`;
    const REORDERED = `league.colin@${OUTSIDE_DOMAIN}`;
    await be.outside!.deliver(named(LOOKALIKE, 'V\u0435ra Imp0rtant (CEO)', 56));
    await be.outside!.deliver(named(REORDERED, 'LEAGUE, colin', 57));
    expectToolOk(await call('sync_inbox', { inboxId }));
    const batch = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as (Offered & {
      usesNameOf: string | null;
      nameShowsOtherAddress: boolean;
    })[];
    const signals = (address: string) =>
      batch.filter((m) => m.from.address === address).map((m) => [m.usesNameOf, m.nameShowsOtherAddress]);
    expect(signals(CEO)).toEqual([['vip', false]]);
    expect(signals(COLIN)).toEqual([['known_good', false]]);
    expect(signals(POSER)).toEqual([[null, true]]);
    expect(signals(PLAIN)).toEqual([[null, false]]);
    expect(signals(LOOKALIKE)).toEqual([['vip', false]]);
    expect(signals(REORDERED)).toEqual([['known_good', false]]);
    // The trusted senders' own mail is not offered at all.
    expect(batch.map((m) => m.from.address)).not.toContain(VIP);
  });
});
