import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTls } from '../rig/https-sink.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolOk } from '../support/tool-caller.ts';

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
  let box: SendingInbox;

  beforeAll(async () => {
    const tls = testTls([GMAIL_SMTP, OTHER_SMTP]);
    box = await sendingInbox(USER, PASSWORD, {
      sink: { tls },
      smtpHost,
      app: {
        overrides: {
          smtp: {
            lookup: (name) =>
              Promise.resolve(name === GMAIL_SMTP || name === OTHER_SMTP ? ['127.0.0.1'] : []),
            addressPolicy: (address) => address === '127.0.0.1',
            ca: tls.ca,
          },
        },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await box.close();
  });

  it(`is delivered once, its draft removed; copies of ours in Sent: ${String(copies)}`, async () => {
    const d = await box.draft('Filed once');
    expect(await box.subjects('Drafts')).toEqual(['Filed once']);
    const sent = expectToolOk(await box.send(d));
    expect(sent).toMatchObject({ sent: true });
    expect(sent['warnings'] ?? []).toEqual([]);
    await box.sink.waitFor(1);
    expect(box.sink.received).toHaveLength(1);
    expect(box.sink.received[0]!.auth).toBe(USER);
    expect(await box.subjects('Sent')).toEqual(Array.from({ length: copies }, () => 'Filed once'));
    expect(await box.subjects('Drafts')).toEqual([]);
  });
});
