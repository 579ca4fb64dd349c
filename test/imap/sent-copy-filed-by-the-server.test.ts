import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../rig/index.ts';
import { testTls } from '../rig/https-sink.ts';
import { connectImapInbox, imapClient } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Decision 0082: Gmail's SMTP files a copy of every message it takes in the sender's Sent Mail. A Gmail account
// added as IMAP (imap.gmail.com, smtp.gmail.com, an app password) got a second copy from us after every send — two
// of each sent message in Sent. The sink answers here under Gmail's name (the test's DNS and CA); beside it, the same
// sink under another name, where the copy is ours to file.
const USER = 'gia';
const PASSWORD = 'gia-imap-password';
const GMAIL_SMTP = 'smtp.gmail.com';
const OTHER_SMTP = 'smtp.example.test';

describe.each([
  [GMAIL_SMTP, 0],
  [OTHER_SMTP, 1],
])('a message sent through %s', (smtpHost, copies) => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    const tls = testTls([GMAIL_SMTP, OTHER_SMTP]);
    [dovecot, sink] = await Promise.all([
      startDovecot({ users: { [USER]: PASSWORD } }),
      startSmtpSink({ users: { [USER]: PASSWORD }, tls }),
    ]);
    app = await createTestApp({
      overrides: {
        smtp: {
          lookup: (name) => Promise.resolve(name === GMAIL_SMTP || name === OTHER_SMTP ? ['127.0.0.1'] : []),
          addressPolicy: (address) => address === '127.0.0.1',
          ca: tls.ca,
        },
      },
    });
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, {
      dovecot,
      user: USER,
      password: PASSWORD,
      smtpHost,
      smtpPort: sink.port,
    });
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await Promise.all([sink.stop(), dovecot.stop()]);
  });

  /** The subjects of one folder at Dovecot, read directly. */
  const subjects = async (path: string): Promise<string[]> => {
    const c = await imapClient(dovecot, USER, PASSWORD);
    try {
      const lock = await c.getMailboxLock(path);
      try {
        if (c.mailbox === false || c.mailbox.exists === 0) return [];
        const out: string[] = [];
        for await (const m of c.fetch('1:*', { envelope: true })) out.push(m.envelope?.subject ?? '');
        return out;
      } finally {
        lock.release();
      }
    } finally {
      await c.logout();
    }
  };

  it(`is delivered once, its draft removed; copies of ours in Sent: ${String(copies)}`, async () => {
    const d = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'friend@example.org',
        subject: 'Filed once',
        text: 'Hello.',
      }),
    );
    expect(await subjects('Drafts')).toEqual(['Filed once']);
    const sent = expectToolOk(
      await call('send_draft', {
        pendingSendId: d['pendingSendId'],
        approvalCode: d['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expect(sent).toMatchObject({ sent: true });
    expect(sent['warnings'] ?? []).toEqual([]);
    await sink.waitFor(1);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]!.auth).toBe(USER);
    expect(await subjects('Sent')).toEqual(Array.from({ length: copies }, () => 'Filed once'));
    expect(await subjects('Drafts')).toEqual([]);
  });
});
