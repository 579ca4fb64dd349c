import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import {
  buildMessage,
  freshPgDatabase,
  seedMaildir,
  startDovecot,
  startSmtpSink,
  type Dovecot,
  type SmtpSink,
} from '../rig/index.ts';
import { connectImapInbox, imapClient, mailboxState } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, toolCaller } from '../support/tool-caller.ts';
import { createKeyViaPage, invitedAccount, type WebClient } from '../support/web-client.ts';

// Issue 7 against real servers: drafts written into Dovecot's Drafts folder, approved sends submitted to an SMTP
// sink that checks AUTH, and the mailbox and the sink inspected directly — never through our own index.

const DAY_MS = 24 * 3_600_000;
const ALICE = 'alice';
const ALICE_PW = 'alice-imap-password';
const CAROL = 'carol';
const CAROL_PW = 'carol-imap-password';
const DAVE = 'dave';
const DAVE_PW = 'dave-imap-password';

type Call = ReturnType<typeof toolCaller>;

interface StoredMessage {
  readonly uid: number;
  readonly flags: string[];
  readonly raw: Buffer;
}

/** Every message of one folder, read with a fresh direct IMAP connection. */
async function folderMessages(dovecot: Dovecot, user: string, password: string, path: string) {
  const c = await imapClient(dovecot, user, password);
  try {
    const lock = await c.getMailboxLock(path);
    try {
      const out: StoredMessage[] = [];
      if (c.mailbox === false || c.mailbox.exists === 0) return out;
      for await (const m of c.fetch('1:*', { uid: true, flags: true, source: true })) {
        const flags = [...(m.flags ?? new Set<string>())].filter((f) => f !== '\\Recent').sort();
        out.push({ uid: m.uid, flags, raw: m.source ?? Buffer.alloc(0) });
      }
      return out;
    } finally {
      lock.release();
    }
  } finally {
    await c.logout();
  }
}

/** The header block as sent (folded lines joined), name (lower case) → values in order. */
function headersOf(raw: Buffer): Map<string, string[]> {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const out = new Map<string, string[]>();
  for (const line of text
    .slice(0, end)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    out.set(name, [...(out.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return out;
}

/** The single value of a header that must occur exactly once. */
function header(raw: Buffer, name: string): string {
  const values = headersOf(raw).get(name.toLowerCase()) ?? [];
  expect(values, `${name} occurs once`).toHaveLength(1);
  return values[0]!;
}

interface Created {
  draft: Record<string, unknown>;
  pendingSendId: string;
  approvalCode: string;
}

/** create_draft with sending on: the draft and its approval. */
async function draftWithApproval(call: Call, args: Record<string, unknown>): Promise<Created> {
  const body = expectToolOk(await call('create_draft', args));
  expect(body['sendAvailable']).toBe(true);
  return {
    draft: body['draft'] as Record<string, unknown>,
    pendingSendId: body['pendingSendId'] as string,
    approvalCode: body['approvalCode'] as string,
  };
}

const approved = (d: Created, extra: Record<string, unknown> = {}) => ({
  pendingSendId: d.pendingSendId,
  approvalCode: d.approvalCode,
  humanApprovedInChat: true,
  ...extra,
});

/** 100 calls to send_draft at once with the same valid approval: one sends, 99 are told it was used. */
async function raceOneHundred(call: Call, d: Created, sink: SmtpSink) {
  const before = sink.received.length;
  const results = await Promise.all(
    Array.from({ length: 100 }, () =>
      call('send_draft', approved(d, { confirmSubject: d.draft['subject'] })),
    ),
  );
  const sent = results.filter((r) => !r.isError);
  const refused = results.filter((r) => r.isError);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.body['sent']).toBe(true);
  expect(refused).toHaveLength(99);
  for (const r of refused) {
    expect(r.body['error'], JSON.stringify(r.body)).toBe('approval_used');
    expect(['sending', 'sent']).toContain((r.body['details'] as { status: string }).status);
  }
  await sink.waitFor(before + 1);
  // Every call has answered, so no exchange is still under way; a short settle only guards against a stray one.
  await new Promise((r) => setTimeout(r, 300));
  expect(sink.received.length).toBe(before + 1);
  return sink.received[before]!;
}

describe('drafts and approved sending against Dovecot and an SMTP sink', () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let app: App;
  let call: Call;
  let otherAccount: Call;
  let person: WebClient;
  let inboxId: string;
  const clock = fixedClock(new Date());

  const drafts = () => folderMessages(dovecot, ALICE, ALICE_PW, 'Drafts');
  const sent = () => folderMessages(dovecot, ALICE, ALICE_PW, 'Sent');
  const draftRows = async () => (await app.db.kysely.selectFrom('drafts').select('id').execute()).length;
  const pendingSend = (id: string) =>
    app.db.kysely.selectFrom('pending_sends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    [dovecot, sink] = await Promise.all([
      startDovecot({ users: { [ALICE]: ALICE_PW, [CAROL]: CAROL_PW, [DAVE]: DAVE_PW } }),
      startSmtpSink({ users: { [ALICE]: ALICE_PW } }),
    ]);
    const start = Date.UTC(2026, 8, 1);
    const thread = [
      { id: '<t1@rig.test>', subject: 'Quarterly plan', refs: [] as string[] },
      { id: '<t2@rig.test>', subject: 'Re: Quarterly plan', refs: ['<t1@rig.test>'] },
      { id: '<t3@rig.test>', subject: 'Re: Re: Quarterly plan', refs: ['<t1@rig.test>', '<t2@rig.test>'] },
    ];
    await seedMaildir({
      maildir: dovecot.maildirOf(ALICE),
      messages: [
        ...thread.map((t, i) => ({
          raw: buildMessage({
            from: { address: 'planner@corp.test', name: 'Planner' },
            to: [{ address: `${ALICE}@example.test` }],
            subject: t.subject,
            date: new Date(start + i * 3_600_000),
            messageId: t.id,
            ...(t.refs.length > 0 && { inReplyTo: t.refs.at(-1)!, references: t.refs }),
            text: `Thread message ${String(i + 1)}`,
          }),
          internalDate: new Date(start + i * 3_600_000),
        })),
        {
          raw: buildMessage({
            from: { address: 'someone@else.test' },
            to: [{ address: `${ALICE}@example.test` }],
            subject: 'Unrelated',
            date: new Date(start + 10 * 3_600_000),
            messageId: '<u1@rig.test>',
            text: 'Not in the thread',
          }),
          internalDate: new Date(start + 10 * 3_600_000),
        },
      ],
    });
    app = await createTestApp({ overrides: { clock } });
    const agent = await agentOn(app);
    call = agent.call;
    person = agent.web;
    inboxId = await connectImapInbox(app, call, {
      dovecot,
      user: ALICE,
      password: ALICE_PW,
      smtpPort: sink.port,
    });
    const second = await invitedAccount(app, 'second@example.test');
    otherAccount = toolCaller(app, await createKeyViaPage(second));
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await sink.stop();
    await dovecot.stop();
  });

  it('create_draft writes the draft into Drafts (\\Draft, headers, Message-ID) and offers no send while sending is off', async () => {
    const before = await drafts();
    const body = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: '"Zoë Müller" <zoe@example.org>, bob@Example.ORG',
        subject: 'Grüße — café ☕ for Thursday',
        text: 'Hello Zoë,\r\nsee you Thursday.\n\nAlice',
      }),
    );
    expect(Object.keys(body).sort()).toEqual(['draft', 'sayToHuman', 'sendAvailable']);
    expect(body['sendAvailable']).toBe(false);
    expect(body['sayToHuman']).toMatch(/Sending from chat is turned off/);
    const draft = body['draft'] as Record<string, unknown>;
    expect(Object.keys(draft).sort()).toEqual(
      [
        'createdAt',
        'id',
        'isDemo',
        'provider',
        'providerDraftId',
        'subject',
        'text',
        'threadId',
        'to',
      ].sort(),
    );
    expect(draft).toEqual({
      id: expect.stringMatching(/^draft_[a-z0-9]{20}$/),
      to: '"Zoë Müller" <zoe@example.org>, bob@example.org',
      subject: 'Grüße — café ☕ for Thursday',
      text: 'Hello Zoë,\nsee you Thursday.\n\nAlice',
      provider: 'imap',
      providerDraftId: expect.stringMatching(/^[1-9]\d*$/),
      threadId: null,
      isDemo: false,
      createdAt: clock.now().toISOString(),
    });

    const after = await drafts();
    expect(after).toHaveLength(before.length + 1);
    const placed = after.find((m) => String(m.uid) === draft['providerDraftId']);
    expect(placed, 'providerDraftId is the UID in Drafts').toBeDefined();
    expect(placed!.flags).toEqual(['\\Draft', '\\Seen']);
    const raw = placed!.raw;
    expect(header(raw, 'From')).toBe('alice@example.test');
    // Non-ASCII only as RFC 2047 encoded words: the header block is plain ASCII.
    const head = raw.subarray(0, raw.indexOf('\r\n\r\n'));
    expect(/^[\t\r\n\x20-\x7e]*$/.test(head.toString('latin1'))).toBe(true);
    expect(header(raw, 'Subject')).toMatch(/^=\?UTF-8\?[QB]\?/i);
    expect(header(raw, 'To')).toMatch(/=\?UTF-8\?[QB]\?.*\?= <zoe@example\.org>, bob@example\.org$/i);
    expect(header(raw, 'Message-ID')).toMatch(/^<[a-z0-9]{24}@example\.test>$/);
    expect(headersOf(raw).has('in-reply-to')).toBe(false);
    expect(headersOf(raw).has('references')).toBe(false);
    const parsed = await PostalMime.parse(raw);
    expect(parsed.subject).toBe('Grüße — café ☕ for Thursday');
    expect(parsed.to).toEqual([
      { name: 'Zoë Müller', address: 'zoe@example.org' },
      { name: '', address: 'bob@example.org' },
    ]);
    expect(parsed.text?.replace(/\r\n/g, '\n').trim()).toBe('Hello Zoë,\nsee you Thursday.\n\nAlice');

    const shown = expectToolOk(await call('show_draft', { inboxId, draftId: draft['id'] }));
    expect(shown['draft']).toEqual({ ...draft, status: 'draft' });
    expect(await app.db.kysely.selectFrom('pending_sends').selectAll().execute()).toEqual([]);
  });

  it('a draft with a threadId from get_message replies in that thread (In-Reply-To, References)', async () => {
    const list = expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 50 }))[
      'messages'
    ] as {
      messageId: string;
      subject: string;
    }[];
    const last = list.find((m) => m.subject === 'Re: Re: Quarterly plan')!;
    const message = expectToolOk(await call('get_message', { inboxId, messageId: last.messageId }));
    const threadId = message['threadId'] as string;
    expect(threadId).toEqual(expect.any(String));

    const draft = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'planner@corp.test',
        subject: 'Re: Quarterly plan',
        text: 'Agreed.',
        threadId,
      }),
    )['draft'] as Record<string, unknown>;
    expect(draft['threadId']).toBe(threadId);
    const raw = (await drafts()).find((m) => String(m.uid) === draft['providerDraftId'])!.raw;
    expect(header(raw, 'In-Reply-To')).toBe('<t3@rig.test>');
    expect(header(raw, 'References')).toBe('<t1@rig.test> <t2@rig.test> <t3@rig.test>');

    // A thread id that is not one of this inbox's threads is refused, and nothing is written.
    const before = await drafts();
    expectToolError(
      await call('create_draft', {
        inboxId,
        to: 'planner@corp.test',
        subject: 'x',
        text: 'y',
        threadId: '<nope@x>',
      }),
      'invalid_arguments',
    );
    expect(await drafts()).toHaveLength(before.length);
  });

  it('refuses header injection, bad addresses and oversized input with invalid_arguments, writing nothing', async () => {
    const good = { inboxId, to: 'bob@example.org', subject: 'Hello', text: 'Hi Bob' };
    const cases: Record<string, unknown>[] = [
      { to: 'a@b.test\r\nBcc: evil@x.test' },
      { to: 'a@b.test\nBcc: evil@x.test' },
      { to: 'a@b.test\rBcc: evil@x.test' },
      { to: 'a@b.test\u0000Bcc: evil@x.test' },
      { to: '"Bob\r\nBcc: evil@x.test" <bob@example.org>' },
      { to: 'bob@example.org\u0085Bcc: evil@x.test' }, // C1 NEL
      { subject: 'Hi\r\nBcc: evil@x.test' },
      { subject: 'Hi\nBcc: evil@x.test' },
      { subject: 'Hi\rBcc: evil@x.test' },
      { subject: 'Hi\u0000Bcc: evil@x.test' },
      { subject: 'Hi\u001bBcc' },
      { text: 'NUL \u0000 in the body' },
      { to: 'not-an-address' },
      { to: 'a@b' },
      { to: 'a@@b.test' },
      { to: 'bob@example.org, @x.test' },
      { to: '"Bob" <bob@example.org' },
      { to: 'Bob <bob@example.org> <carl@example.org>' },
      // A name that shows another address: the person approving, and the recipient, read the name.
      { to: '"bob@example.org" <carl@example.org>' },
      { to: '' },
      { to: ' , ' },
      { to: Array.from({ length: 51 }, (_, i) => `r${String(i)}@example.org`).join(', ') },
      { to: `"${'N'.repeat(3988)}" <a@b.test>` }, // 4,001 characters
      { subject: 'S'.repeat(901) },
      { text: 't'.repeat(200_001) },
      { threadId: 'has space' },
    ];
    expect(`"${'N'.repeat(3988)}" <a@b.test>`).toHaveLength(4001);
    const mailbox = await mailboxState(dovecot, ALICE, ALICE_PW);
    const rows = await draftRows();
    for (const c of cases) {
      const r = await call('create_draft', { ...good, ...c });
      expect(r.isError, JSON.stringify(c).slice(0, 200)).toBe(true);
      expect(r.body['error'], JSON.stringify(c).slice(0, 200)).toBe('invalid_arguments');
    }
    expect(await mailboxState(dovecot, ALICE, ALICE_PW)).toEqual(mailbox);
    expect(await draftRows()).toBe(rows);
  });

  it('accepts input exactly at the limits: 50 recipients, a 4,000-character To, 900-character subject, 200,000-character text', async () => {
    const before = (await drafts()).length;
    const fifty = Array.from({ length: 50 }, (_, i) => `r${String(i)}@example.org`).join(', ');
    expectToolOk(
      await call('create_draft', { inboxId, to: fifty, subject: 'S'.repeat(900), text: 't'.repeat(200_000) }),
    );
    const longTo = `"${'N'.repeat(3987)}" <a@b.test>`;
    expect(longTo).toHaveLength(4000);
    const d = expectToolOk(
      await call('create_draft', { inboxId, to: longTo, subject: 'Long name', text: 'x' }),
    )['draft'] as {
      providerDraftId: string;
    };
    const after = await drafts();
    expect(after).toHaveLength(before + 2);
    const raw = after.find((m) => String(m.uid) === d.providerDraftId)!.raw;
    expect((await PostalMime.parse(raw)).to).toEqual([{ name: 'N'.repeat(3987), address: 'a@b.test' }]);
  });

  it('set_send_enabled needs humanConfirmedInChat; once on, create_draft returns a pending send and an approval code', async () => {
    expectToolError(await call('set_send_enabled', { enabled: true }), 'confirmation_required');
    expectToolError(
      await call('set_send_enabled', { enabled: true, humanConfirmedInChat: false }),
      'confirmation_required',
    );
    expect(
      expectToolOk(await call('create_draft', { inboxId, to: 'bob@example.org', subject: 's', text: 't' })),
    ).toMatchObject({
      sendAvailable: false,
    });

    expect(
      expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true })),
    ).toMatchObject({
      sendEnabled: true,
    });
    const body = expectToolOk(
      await call('create_draft', { inboxId, to: 'bob@example.org', subject: 'On', text: 'now' }),
    );
    expect(Object.keys(body).sort()).toEqual(
      ['agentOnly', 'approvalCode', 'approvalExpiresAt', 'draft', 'pendingSendId', 'sendAvailable'].sort(),
    );
    expect(body['sendAvailable']).toBe(true);
    expect(body['pendingSendId']).toMatch(/^ps_[a-z0-9]{20}$/);
    expect(body['approvalCode']).toMatch(/^[a-z0-9]{24}$/);
    expect(body['approvalExpiresAt']).toBe(new Date(clock.now().getTime() + DAY_MS).toISOString());
    // Only the hash of the code is stored.
    const row = await pendingSend(body['pendingSendId'] as string);
    expect(row.status).toBe('pending');
    expect(JSON.stringify(row)).not.toContain(body['approvalCode'] as string);
  });

  it('send_draft refuses without approval, with wrong codes (locking after five) and with mismatched confirmations; nothing is sent', async () => {
    const d = await draftWithApproval(call, {
      inboxId,
      to: 'bob@example.org',
      subject: 'Wrong codes',
      text: 'never sent',
    });
    const count = sink.received.length;
    expectToolError(
      await call('send_draft', { pendingSendId: d.pendingSendId, approvalCode: d.approvalCode }),
      'human_approval_required',
    );
    expectToolError(
      await call('send_draft', {
        pendingSendId: d.pendingSendId,
        approvalCode: d.approvalCode,
        humanApprovedInChat: false,
      }),
      'human_approval_required',
    );
    const wrong = d.approvalCode.startsWith('a')
      ? `b${d.approvalCode.slice(1)}`
      : `a${d.approvalCode.slice(1)}`;
    for (const left of [4, 3, 2, 1, 0]) {
      const r = expectToolError(
        await call('send_draft', approved(d, { approvalCode: wrong })),
        'approval_invalid',
      );
      expect(r['details']).toEqual({ attemptsLeft: left });
    }
    // Locked: even the right code no longer works.
    const locked = expectToolError(await call('send_draft', approved(d)), 'approval_invalid');
    expect(locked['details']).toEqual({ attemptsLeft: 0 });
    expect((await pendingSend(d.pendingSendId)).status).toBe('locked');

    const e = await draftWithApproval(call, {
      inboxId,
      to: 'Bob <bob@example.org>, carl@example.org',
      subject: 'Mismatch',
      text: 'x',
    });
    for (const extra of [
      { confirmTo: 'bob@example.org' },
      { confirmTo: 'bob@example.org, carl@example.org, eve@example.org' },
      { confirmTo: 'not an address' },
      { confirmSubject: 'Mismatch!' },
      { confirmTo: 'carl@example.org, bob@example.org', confirmSubject: 'Other' },
    ]) {
      expectToolError(await call('send_draft', approved(e, extra)), 'confirm_mismatch');
    }
    // Mismatches do not count as wrong codes and do not use the approval.
    expect(await pendingSend(e.pendingSendId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(sink.received.length).toBe(count);
    // Both drafts are still where they were.
    const ids = (await drafts()).map((m) => String(m.uid));
    expect(ids).toContain(d.draft['providerDraftId']);
    expect(ids).toContain(e.draft['providerDraftId']);
  });

  it('sends an approved draft once, as alice, with the draft’s headers; files a copy in Sent and removes the draft', async () => {
    const d = await draftWithApproval(call, {
      inboxId,
      to: '"Zoë Müller" <zoe@example.org>, Bob <bob@example.org>',
      subject: 'Grüße: the plan',
      text: 'Approved text.',
    });
    const draftCopy = (await drafts()).find((m) => String(m.uid) === d.draft['providerDraftId'])!;
    const messageId = header(draftCopy.raw, 'Message-ID');
    const count = sink.received.length;
    const r = expectToolOk(
      await call(
        'send_draft',
        approved(d, {
          // Same recipients in another order and case: the comparison is on the address set.
          confirmTo: 'bob@EXAMPLE.org, zoe@example.org',
          confirmSubject: 'Grüße: the plan',
        }),
      ),
    );
    expect(r).toMatchObject({ sent: true, sentAt: clock.now().toISOString(), sayToHuman: 'Sent.' });
    expect(r['warnings']).toBeUndefined();
    expect(r['draft']).toEqual({ ...d.draft });

    expect(sink.received).toHaveLength(count + 1);
    const mail = sink.received[count]!;
    expect(mail.auth).toBe(ALICE);
    expect(mail.from).toBe('alice@example.test');
    expect(mail.to).toEqual(['zoe@example.org', 'bob@example.org']);
    for (const name of ['Subject', 'To', 'From', 'Message-ID']) {
      expect(header(mail.raw, name), name).toBe(header(draftCopy.raw, name));
    }
    expect(header(mail.raw, 'Message-ID')).toBe(messageId);
    expect(headersOf(mail.raw).has('bcc')).toBe(false);
    const parsed = await PostalMime.parse(mail.raw);
    expect(parsed.subject).toBe('Grüße: the plan');
    expect(parsed.text?.replace(/\r\n/g, '\n').trim()).toBe('Approved text.');

    // Filed in Sent (seen), and gone from Drafts.
    const inSent = (await sent()).filter((m) => header(m.raw, 'Message-ID') === messageId);
    expect(inSent).toHaveLength(1);
    expect(inSent[0]!.flags).toEqual(['\\Seen']);
    const left = await drafts();
    expect(left.map((m) => String(m.uid))).not.toContain(d.draft['providerDraftId']);
    expect(left.filter((m) => header(m.raw, 'Message-ID') === messageId)).toEqual([]);
    expect(
      expectToolOk(await call('show_draft', { inboxId, draftId: d.draft['id'] }))['draft'],
    ).toMatchObject({
      status: 'sent',
    });

    // The code is single-use.
    const again = expectToolError(await call('send_draft', approved(d)), 'approval_used');
    expect(again['details']).toEqual({ status: 'sent' });
    expect(again['sayToHuman']).toBeUndefined();
    expect(sink.received).toHaveLength(count + 1);
  });

  it('a sent reply marks the message it answers \\Answered at the server, as mail clients do, and no other (decision 0083)', async () => {
    const list = expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 50 }))[
      'messages'
    ] as { messageId: string; subject: string }[];
    const first = list.find((m) => m.subject === 'Quarterly plan')!;
    const threadId = expectToolOk(await call('get_message', { inboxId, messageId: first.messageId }))[
      'threadId'
    ];
    const answered = async () =>
      (await folderMessages(dovecot, ALICE, ALICE_PW, 'INBOX'))
        .filter((m) => m.flags.includes('\\Answered'))
        .map((m) => header(m.raw, 'Message-ID'));
    expect(await answered()).toEqual([]);
    const d = await draftWithApproval(call, {
      inboxId,
      to: 'planner@corp.test',
      subject: 'Re: Quarterly plan',
      text: 'Agreed, thank you.',
      threadId,
    });
    expect(await answered()).toEqual([]); // a draft answers nothing yet
    expectToolOk(await call('send_draft', approved(d)));
    expect(await answered()).toEqual(['<t3@rig.test>']);
  });

  it('another account cannot redeem this account’s approval; unknown ids are approval_invalid', async () => {
    const d = await draftWithApproval(call, {
      inboxId,
      to: 'bob@example.org',
      subject: 'Mine',
      text: 'only mine',
    });
    expectToolOk(await otherAccount('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const foreign = expectToolError(await otherAccount('send_draft', approved(d)), 'approval_invalid');
    expect(foreign['details']).toBeUndefined();
    expectToolError(
      await call('send_draft', approved(d, { pendingSendId: 'ps_aaaaaaaaaaaaaaaaaaaa' })),
      'approval_invalid',
    );
    expectToolError(await call('send_draft', approved(d, { pendingSendId: 'ps_short' })), 'approval_invalid');
    expectToolError(
      await call('send_draft', approved(d, { pendingSendId: d.draft['id'] })),
      'approval_invalid',
    );
    // None of that touched the real approval: the owner still sends with it.
    expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'pending', attempts: 0 });
    const count = sink.received.length;
    expectToolOk(await call('send_draft', approved(d)));
    expect(sink.received).toHaveLength(count + 1);
    expect(sink.received[count]!.to).toEqual(['bob@example.org']);
  });

  it('an approval lasts 24 hours: usable just before, approval_expired from then on', async () => {
    const early = await draftWithApproval(call, {
      inboxId,
      to: 'bob@example.org',
      subject: 'Early',
      text: '1',
    });
    const late = await draftWithApproval(call, {
      inboxId,
      to: 'bob@example.org',
      subject: 'Late',
      text: '2',
    });
    const count = sink.received.length;
    clock.advance(DAY_MS - 1);
    expectToolOk(await call('send_draft', approved(early)));
    clock.advance(1);
    expectToolError(await call('send_draft', approved(late)), 'approval_expired');
    clock.advance(DAY_MS);
    expectToolError(await call('send_draft', approved(late)), 'approval_expired');
    expect(sink.received).toHaveLength(count + 1);
    expect(header(sink.received[count]!.raw, 'Subject')).toBe('Early');
    expect((await pendingSend(late.pendingSendId)).status).toBe('pending');
  });

  it('with sending turned off again, send_draft is send_disabled and sends nothing; the approval survives', async () => {
    const d = await draftWithApproval(call, { inboxId, to: 'bob@example.org', subject: 'Paused', text: 'p' });
    expectToolOk(await call('set_send_enabled', { enabled: false, humanConfirmedInChat: true }));
    const count = sink.received.length;
    const r = expectToolError(await call('send_draft', approved(d)), 'send_disabled');
    expect(r['sayToHuman']).toMatch(/turned off/);
    expect(
      expectToolOk(await call('create_draft', { inboxId, to: 'bob@example.org', subject: 'Off', text: 'o' }))[
        'sendAvailable'
      ],
    ).toBe(false);
    expect(sink.received).toHaveLength(count);
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    expectToolOk(await call('send_draft', approved(d)));
    expect(sink.received).toHaveLength(count + 1);
  });

  it('the profile setting requireInAppConfirmation refuses approval in chat until the person turns it off', async () => {
    const d = await draftWithApproval(call, { inboxId, to: 'bob@example.org', subject: 'In app', text: 'a' });
    expectToolOk(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: true } } },
      }),
    );
    const count = sink.received.length;
    expectToolError(await call('send_draft', approved(d)), 'human_approval_required');
    expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'pending', attempts: 0 });
    // An agent cannot take the person's rule back (decision 0102): a prompt in a message could ask it to.
    expectToolError(
      await call('update_triage_profile', {
        patch: { defaults: { sending: { requireInAppConfirmation: false } } },
      }),
      'human_approval_required',
    );
    expectToolError(await call('send_draft', approved(d)), 'human_approval_required');
    await person.get('/settings/preferences');
    await person.post('/settings/preferences/confirm-in-app', { required: 'off' });
    expectToolOk(await call('send_draft', approved(d)));
    expect(sink.received).toHaveLength(count + 1);
  });

  describe('when the submission server refuses or is down', () => {
    let carolInbox: string;
    let port: number;
    let working: SmtpSink | undefined;

    afterAll(async () => {
      await working?.stop();
    });

    it('a refused login is provider_error not_sent and needs_reconnect; after reconnecting the same approval sends once', async () => {
      const refusing = await startSmtpSink({ users: { [CAROL]: 'not-carols-password' } });
      port = refusing.port;
      carolInbox = await connectImapInbox(app, call, {
        dovecot,
        user: CAROL,
        password: CAROL_PW,
        smtpPort: port,
        label: 'Carol',
      });
      const d = await draftWithApproval(call, {
        inboxId: carolInbox,
        to: 'dan@example.org',
        subject: 'From Carol',
        text: 'c',
      });

      const refused = expectToolError(await call('send_draft', approved(d)), 'provider_error');
      expect(refused['details']).toEqual({ status: 'not_sent' });
      expect(refused['message']).toMatch(/refused the login/);
      expect(refused['message']).not.toContain(CAROL_PW);
      expect(refusing.received).toEqual([]);
      expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'pending', attempts: 0 });
      // The stored credential was refused: the inbox needs reconnecting before anything else.
      expect(expectToolOk(await call('get_connection_status', { inboxId: carolInbox }))).toMatchObject({
        connectionStatus: 'needs_reconnect',
        needsReconnect: true,
      });
      expectToolError(await call('send_draft', approved(d)), 'needs_reconnect');
      await refusing.stop();

      const link = expectToolOk(await call('start_imap_secret_capture', { inboxId: carolInbox }))[
        'url'
      ] as string;
      const token = new URL(link).searchParams.get('token') ?? '';
      expect((await app.services.tools.inboxes.completeSecretCapture(token, '', CAROL_PW)).ok).toBe(true);
      working = await startSmtpSink({ users: { [CAROL]: CAROL_PW }, port });
      expectToolOk(await call('send_draft', approved(d)));
      expect(working.received).toHaveLength(1);
      expect(working.received[0]).toMatchObject({
        auth: CAROL,
        from: 'carol@example.test',
        to: ['dan@example.org'],
      });
      expectToolError(await call('send_draft', approved(d)), 'approval_used');
      expect(working.received).toHaveLength(1);
      const inSent = await folderMessages(dovecot, CAROL, CAROL_PW, 'Sent');
      expect(inSent.map((m) => header(m.raw, 'Subject'))).toEqual(['From Carol']);
      expect(await folderMessages(dovecot, CAROL, CAROL_PW, 'Drafts')).toEqual([]);
    });

    it('a server that is down is provider_error not_sent; once it is back the same approval sends once', async () => {
      await working?.stop();
      working = undefined;
      const d = await draftWithApproval(call, {
        inboxId: carolInbox,
        to: 'dan@example.org',
        subject: 'While down',
        text: 'd',
      });
      const down = expectToolError(await call('send_draft', approved(d)), 'provider_error');
      expect(down['details']).toEqual({ status: 'not_sent' });
      expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'pending', attempts: 0 });
      // Nothing about the credential: the inbox stays connected.
      expect(expectToolOk(await call('get_connection_status', { inboxId: carolInbox }))).toMatchObject({
        connectionStatus: 'connected',
      });

      working = await startSmtpSink({ users: { [CAROL]: CAROL_PW }, port });
      expectToolOk(await call('send_draft', approved(d)));
      expect(working.received).toHaveLength(1);
      expect(header(working.received[0]!.raw, 'Subject')).toBe('While down');
      expectToolError(await call('send_draft', approved(d)), 'approval_used');
      expect(working.received).toHaveLength(1);
    }, 20_000);

    it('a login the server could not check just now (454) is not_sent with the inbox still connected; the same approval sends once it can', async () => {
      const sink = working!;
      const d = await draftWithApproval(call, {
        inboxId: carolInbox,
        to: 'dan@example.org',
        subject: 'Password database away',
        text: 'e',
      });
      const before = sink.received.length;
      sink.authUnavailable(true);
      const refused = expectToolError(await call('send_draft', approved(d)), 'provider_error');
      expect(refused['details']).toEqual({ status: 'not_sent' });
      expect(refused['message']).toMatch(/could not check the login just now \(it answered 454/);
      expect(expectToolOk(await call('get_connection_status', { inboxId: carolInbox }))).toMatchObject({
        connectionStatus: 'connected',
        needsReconnect: false,
      });
      sink.authUnavailable(false);
      expectToolOk(await call('send_draft', approved(d)));
      expect(sink.received).toHaveLength(before + 1);
    });

    it('a connection lost after the message was handed over is provider_error unknown; the approval never sends again', async () => {
      await working?.stop();
      working = undefined;
      const holding = await startSmtpSink({ users: { [CAROL]: CAROL_PW }, port, holdReplies: true });
      try {
        const d = await draftWithApproval(call, {
          inboxId: carolInbox,
          to: 'dan@example.org',
          subject: 'Cut off',
          text: 'u',
        });
        const inFlight = call('send_draft', approved(d));
        await holding.waitFor(1);
        expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'sending' });
        holding.disconnect();
        const r = expectToolError(await inFlight, 'provider_error');
        expect(r['details']).toEqual({ status: 'unknown' });
        expect(r['sayToHuman']).toMatch(/check your Sent folder/);
        expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'unknown' });

        holding.release(); // from here on the sink would accept a second submission at once
        const again = expectToolError(await call('send_draft', approved(d)), 'approval_used');
        expect(again['details']).toEqual({ status: 'unknown' });
        expect(holding.received).toHaveLength(1);
        const inSent = await folderMessages(dovecot, CAROL, CAROL_PW, 'Sent');
        expect(inSent.map((m) => header(m.raw, 'Subject'))).not.toContain('Cut off');
      } finally {
        await holding.stop();
      }
    });
  });

  it('100 concurrent send_draft calls with one valid code: exactly one message reaches the sink (SQLite)', async () => {
    const d = await draftWithApproval(call, {
      inboxId,
      to: 'race@example.org',
      subject: 'Race',
      text: 'once',
    });
    const mail = await raceOneHundred(call, d, sink);
    expect(mail.to).toEqual(['race@example.org']);
    expect(header(mail.raw, 'Subject')).toBe('Race');
    expect(await pendingSend(d.pendingSendId)).toMatchObject({ status: 'sent', attempts: 0 });
    const copies = (await sent()).filter((m) => header(m.raw, 'Subject') === 'Race');
    expect(copies).toHaveLength(1);
  });

  describe('on PostgreSQL', () => {
    let pgApp: App;
    let pgSink: SmtpSink;
    let pgCall: Call;
    let pgInbox: string;

    beforeAll(async () => {
      pgSink = await startSmtpSink({ users: { [DAVE]: DAVE_PW } });
      pgApp = await createTestApp({ pgUrl: await freshPgDatabase() });
      pgCall = (await agentOn(pgApp)).call;
      pgInbox = await connectImapInbox(pgApp, pgCall, {
        dovecot,
        user: DAVE,
        password: DAVE_PW,
        smtpPort: pgSink.port,
      });
      expectToolOk(await pgCall('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    }, 120_000);

    afterAll(async () => {
      await pgApp.close();
      await pgSink.stop();
    });

    it('100 concurrent send_draft calls with one valid code: exactly one message reaches the sink', async () => {
      const d = await draftWithApproval(pgCall, {
        inboxId: pgInbox,
        to: 'race@example.org',
        subject: 'Race on PostgreSQL',
        text: 'once',
      });
      const mail = await raceOneHundred(pgCall, d, pgSink);
      expect(mail.auth).toBe(DAVE);
      expect(
        (await folderMessages(dovecot, DAVE, DAVE_PW, 'Sent')).map((m) => header(m.raw, 'Subject')),
      ).toEqual(['Race on PostgreSQL']);
    });
  });
});
