import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_IMAP_SERVER } from '../support/mail-backends.ts';
import { imapClient } from '../support/imap-inbox.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0087: a mailbox with neither Drafts nor Sent (a server that makes only INBOX, a person who deleted them)
// refused every draft — "This mailbox has no Drafts folder" — so nothing could be written or sent from it; a send
// from one with Drafts but no Sent filed no copy. Mail clients make both on first use, as the service makes Archive.
const USER = 'nia';
const PASSWORD = 'nia-imap-password';

describe.each([
  ['Dovecot', {}],
  ['a plain IMAP4rev1 server', PLAIN_IMAP_SERVER],
])('a mailbox without Drafts or Sent on %s', (_, server) => {
  let box: SendingInbox;
  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD, { dovecot: { ...server, folders: ['Trash', 'Junk'] } });
  }, 120_000);
  afterAll(async () => {
    await box.close();
  });

  const paths = async () => {
    const c = await imapClient(box.dovecot, USER, PASSWORD);
    try {
      return (await c.list()).map((f) => f.path).sort();
    } finally {
      await c.logout();
    }
  };

  it('makes Drafts on the first draft and Sent on the first send, and files there', async () => {
    expect(await paths()).toEqual(['INBOX', 'Junk', 'Trash']);
    const d = await box.draft('First', 'Hi.');
    expect(await paths()).toEqual(['Drafts', 'INBOX', 'Junk', 'Trash']);
    expect(await box.subjects('Drafts')).toEqual(['First']);
    const sent = expectToolOk(await box.send(d));
    expect(sent['warnings']).toBeUndefined();
    expect(box.sink.received).toHaveLength(1);
    expect(await paths()).toEqual(['Drafts', 'INBOX', 'Junk', 'Sent', 'Trash']);
    expect(await box.subjects('Sent')).toEqual(['First']);
    expect(await box.subjects('Drafts')).toEqual([]);
    // The second draft and send use what was made.
    expectToolOk(await box.send(await box.draft('Second', 'x')));
    expect(await paths()).toEqual(['Drafts', 'INBOX', 'Junk', 'Sent', 'Trash']);
    expect(await box.subjects('Sent')).toEqual(['First', 'Second']);
  });
});
