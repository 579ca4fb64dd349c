import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import { imapClient } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0069: imapflow drops, silently, a server answer nested more than 25 parentheses deep — the BODYSTRUCTURE
// of a message forwarded as an attachment a dozen times over, or of one built that deep. Such a message never reached
// the index: no agent, no view, no screening ever saw it. Its summary and its text are now read from its own bytes.
const CRLF = '\r\n';

/** "Fwd:" a dozen times over, each forward carrying the one before as a message/rfc822 attachment. */
function forwardChain(levels: number): Buffer {
  let inner = buildMessage({
    from: { address: 'origin@example.org', name: 'Origin' },
    to: [{ address: 'first@example.org' }],
    subject: 'The original',
    date: new Date(Date.UTC(2026, 9, 1)),
    messageId: '<chain0@rig.test>',
    text: 'The first words of the chain.',
  }).toString('latin1');
  for (let i = 1; i <= levels; i++) {
    const boundary = `fwd${String(i)}`;
    inner = [
      `From: Forwarder ${String(i)} <fwd${String(i)}@example.org>`,
      'To: ann@example.test',
      `Subject: ${'Fwd: '.repeat(i)}The original`,
      `Date: Mon, ${String(i + 1).padStart(2, '0')} Nov 2026 10:00:00 +0000`,
      `Message-ID: <chain${String(i)}@rig.test>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Forward number ${String(i)}, see below.`,
      `--${boundary}`,
      'Content-Type: message/rfc822',
      'Content-Disposition: attachment; filename="forwarded.eml"',
      '',
      inner,
      `--${boundary}--`,
      '',
    ].join(CRLF);
  }
  return Buffer.from(inner, 'latin1');
}

/** Multiparts inside multiparts, `depth` deep, a line of text at the bottom. */
function nested(depth: number, subject = 'Built deep'): Buffer {
  const lines = [
    'From: Deep <deep@example.org>',
    'To: ann@example.test',
    `Subject: ${subject}`,
    'Date: Mon, 02 Nov 2026 10:00:00 +0000',
    `Message-ID: <${subject.replace(/\W/g, '')}@rig.test>`,
    'MIME-Version: 1.0',
  ];
  for (let i = 0; i < depth; i++)
    lines.push(`Content-Type: multipart/mixed; boundary="b${String(i)}"`, '', `--b${String(i)}`);
  lines.push('Content-Type: text/plain', '', 'At the bottom.');
  for (let i = depth - 1; i >= 0; i--) lines.push(`--b${String(i)}--`);
  return Buffer.from(lines.join(CRLF) + CRLF);
}

const plain = buildMessage({
  from: { address: 'sam@example.org', name: 'Sam' },
  to: [{ address: 'ann@example.test' }],
  subject: 'Plain',
  date: new Date(Date.UTC(2026, 10, 20)),
  messageId: '<plain@rig.test>',
  text: 'Nothing deep here.',
});

const later = buildMessage({
  from: { address: 'sam@example.org', name: 'Sam' },
  to: [{ address: 'ann@example.test' }],
  subject: 'Later',
  date: new Date(Date.UTC(2026, 10, 21)),
  messageId: '<later@rig.test>',
  text: 'Still arriving.',
});

describe('mail nested deeper than imapflow parses', () => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', 'ann', [plain, forwardChain(14)]);
    ({ call, inboxId } = inbox);
  }, 120_000);
  afterAll(() => inbox.close());

  it('imapflow itself still drops the forward chain’s answer (else this test no longer tests the fallback)', async () => {
    const client = await imapClient(inbox.dovecot, 'ann', 'ann-password');
    try {
      await client.mailboxOpen('INBOX');
      const answered: number[] = [];
      for await (const m of client.fetch('1:*', { uid: true, bodyStructure: true }, { uid: true }))
        answered.push(m.uid);
      expect(answered).toEqual([1]);
    } finally {
      await client.logout();
    }
  });

  it('the first sync indexes it; its summary, text and thread are read from its own bytes', async () => {
    const listed = expectToolOk(await call('list_messages', { inboxId }));
    expect(listed['total']).toBe(2);
    const chain = (listed['messages'] as Record<string, unknown>[]).find((m) => m['subject'] !== 'Plain')!;
    expect(chain).toMatchObject({
      subject: `${'Fwd: '.repeat(14)}The original`,
      from: { address: 'fwd14@example.org', name: 'Forwarder 14' },
      snippet: 'Forward number 14, see below.',
      date: '2026-11-15T10:00:00.000Z',
      hasAttachments: true,
    });
    const full = expectToolOk(await call('get_message', { inboxId, messageId: chain['messageId'] }));
    expect(full['bodyUntrusted']).toContain('Forward number 14, see below.');
    // A part is fetched by its place in the structure the server describes, which cannot be read here.
    expect(full['attachments']).toEqual([]);
    expect(full['threadId']).toBe('<chain14@rig.test>');
  });

  it('mail arriving later, found by search, acted on and undone', async () => {
    await inbox.deliver(nested(120));
    // Indexed by this sync or by the one the inbox's watcher starts (they race): listed once either way (below).
    expectToolOk(await call('sync_inbox', { inboxId }));
    const found = expectToolOk(await call('search_mailbox', { inboxId, query: 'Built deep' }));
    const deep = (found['messages'] as Record<string, unknown>[])[0]!;
    expect(deep).toMatchObject({ subject: 'Built deep', snippet: 'At the bottom.', hasAttachments: false });
    const read = expectToolOk(await call('get_message', { inboxId, messageId: deep['messageId'] }));
    expect(read['bodyUntrusted']).toContain('At the bottom.');
    const acted = expectToolOk(
      await call('act_on_messages', {
        action: 'archive',
        items: [{ inboxId, messageId: deep['messageId'] }],
      }),
    );
    expect((acted['changed'] as unknown[]).length).toBe(1);
    expectToolOk(await call('undo_action', { undoId: acted['undoId'] }));
    const after = expectToolOk(await call('list_messages', { inboxId }));
    expect(after['total']).toBe(3);
  });

  it('one past the MIME parser’s own limits (300 multiparts deep, 2 MB of header lines) is listed from its header, and later mail still comes', async () => {
    // Decision 0097: the parser throws on such a message. One 15 KB message 300 deep, which anyone can send, failed
    // the sync of its folder for good ("the mail server refused"): no later message was ever listed.
    const manyHeaders = Buffer.concat([
      Buffer.from(
        'From: Loud <loud@example.org>\r\nTo: ann@example.test\r\nSubject: Headers everywhere\r\n' +
          'Message-ID: <loud@rig.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="h"\r\n\r\n',
      ),
      ...Array.from({ length: 3 }, () =>
        Buffer.from(`--h\r\n${'X-Filler: 0123456789abcdef0123456789abcdef\r\n'.repeat(20_000)}\r\npart\r\n`),
      ),
      Buffer.from('--h--\r\n'),
    ]);
    await inbox.deliver(nested(300, 'Built deeper'), manyHeaders, later);
    // All three, each once: indexed by these syncs, or by the one the inbox's watcher starts when they arrive — the
    // two race (seen in a busy full run: the watcher's sync took all three, and these found nothing new). A sync's view
    // may also lag another session's APPEND by a moment (2 of 3 listed); the next sync takes the rest: the promise.
    const NEW = ['Built deeper', 'Headers everywhere', 'Later'];
    let listed: Record<string, unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      expectToolOk(await call('sync_inbox', { inboxId }));
      listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }))['messages'] as Record<
        string,
        unknown
      >[];
      if (NEW.every((subject) => listed.some((m) => m['subject'] === subject))) break;
    }
    expect(
      listed
        .map((m) => m['subject'] as string)
        .filter((subject) => NEW.includes(subject))
        .sort(),
    ).toEqual(NEW);
    const bySubject = new Map(listed.map((m) => [m['subject'] as string, m]));
    expect(bySubject.get('Later')).toMatchObject({ snippet: 'Still arriving.' });
    // Too deep for the parser: read from its header block, with no body.
    const deep = bySubject.get('Built deeper');
    expect(deep).toMatchObject({ from: { address: 'deep@example.org' }, snippet: '' });
    const read = expectToolOk(await call('get_message', { inboxId, messageId: deep!['messageId'] }));
    expect(read).toMatchObject({ subject: 'Built deeper', to: [{ address: 'ann@example.test' }] });
    // 2.4 MB, so read as its header block and its text parts, whose header lines pass the parser's 2 MB: the same.
    const loud = bySubject.get('Headers everywhere');
    expect(loud).toMatchObject({ from: { address: 'loud@example.org' }, snippet: 'part' });
    const readLoud = expectToolOk(await call('get_message', { inboxId, messageId: loud!['messageId'] }));
    expect(readLoud).toMatchObject({ subject: 'Headers everywhere', from: { address: 'loud@example.org' } });
  });
});
