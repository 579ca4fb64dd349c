import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { gmailBackend, type Backend } from '../support/mail-backends.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// Decision 0073: an IMAP mailbox keeps labels as keywords, which are ASCII atoms, and Dovecot keeps them short.
// imapflow answers `false` when the server refuses a STORE, and that was taken for done: "I labelled 1 message",
// an undo handle, and the index showing the label until the next sync found the server never had it.
describe('labels an IMAP server cannot keep', () => {
  let inbox: InboxWithMail;
  let messageId: string;
  const labels = async () => {
    expectToolOk(await inbox.call('sync_inbox', { inboxId: inbox.inboxId }));
    return expectToolOk(await inbox.call('get_message', { inboxId: inbox.inboxId, messageId }))['labels'];
  };

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', 'kw', [
      buildMessage({
        from: { address: 'a@example.org', name: 'A' },
        to: [{ address: 'kw@example.test' }],
        subject: 'Label me',
        date: new Date(Date.UTC(2026, 10, 1)),
        messageId: '<kw@rig.test>',
        text: 'Hello.',
      }),
    ]);
    const listed = expectToolOk(await inbox.call('list_messages', { inboxId: inbox.inboxId }));
    messageId = (listed['messages'] as { messageId: string }[])[0]!.messageId;
  }, 120_000);
  afterAll(() => inbox.close());

  const label = (name: string) =>
    inbox.call('apply_labels', { inboxId: inbox.inboxId, messageIds: [messageId], labelIds: [name] });

  it('a label that is no keyword is refused in words that suggest one, and nothing is recorded', async () => {
    const refused = expectToolError(await label('Überuns'), 'provider_error');
    expect(refused['message']).toContain('“Überuns” cannot be one. Use a name such as “Uberuns”.');
    expect(await labels()).toEqual([]);
  });

  it('a keyword longer than the server keeps is refused, not reported made', async () => {
    const refused = expectToolError(await label('x'.repeat(100)), 'provider_error');
    expect(refused['message']).toContain('the mail server did not set the flag or label');
    expect(await labels()).toEqual([]);
  });

  it('a keyword it keeps is made, and its undo clears it', async () => {
    const made = expectToolOk(await label('Follow-up'));
    expect(await labels()).toEqual(['Follow-up']);
    expectToolOk(await inbox.call('undo_action', { undoId: made['undoId'] }));
    expect(await labels()).toEqual([]);
  });
});

// The same on Gmail: a label named as one of Gmail's own cannot be made, and was reported made.
describe('labels Gmail cannot make', () => {
  let be: Backend;
  afterAll(() => be.close());

  it('a label named as a system label is refused in words, and the message keeps its place and labels', async () => {
    be = await gmailBackend();
    const { call } = be.agent;
    const inboxId = be.inboxId;
    expectToolOk(await call('sync_inbox', { inboxId })); // its first sync may still be on its way
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 1 }));
    const messageId = (listed['messages'] as { messageId: string }[])[0]!.messageId;
    for (const name of ['TRASH', 'CATEGORY_SOCIAL']) {
      const refused = expectToolError(
        await call('apply_labels', { inboxId, messageIds: [messageId], labelIds: [name] }),
        'provider_error',
      );
      expect(refused['message']).toContain(`Gmail did not make the label “${name}”`);
    }
    expectToolOk(await call('sync_inbox', { inboxId }));
    expect(expectToolOk(await call('get_message', { inboxId, messageId }))).toMatchObject({
      folder: 'inbox',
      labels: [],
    });
  });
});
