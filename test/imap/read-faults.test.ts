import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Reading when the mail server goes away: the read tools answer provider_error with a safe reason — never an
// internal error — and the index stays readable.
describe('read tools when the IMAP server is gone', () => {
  const USER = 'fay';
  const PASSWORD = 'fay-imap-password';
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let messageId: string;
  let unreadId: string;
  let partId: string;
  let link: string;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: [1, 2].map((i) => ({
        raw: buildMessage({
          from: { address: `s${String(i)}@example.org`, name: 'S' },
          to: [{ address: `${USER}@example.test` }],
          subject: `Message ${String(i)}`,
          date: new Date(Date.UTC(2026, 9, i)),
          messageId: `<f${String(i)}@rig.test>`,
          text: `Body ${String(i)}`,
          attachments: [{ filename: 'note.txt', contentType: 'text/plain', content: Buffer.from('hello') }],
        }),
        flags: [],
        internalDate: new Date(Date.UTC(2026, 9, i)),
      })),
    });
    app = await createTestApp();
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    const listed = expectToolOk(await call('list_messages', { inboxId }))['messages'] as {
      messageId: string;
    }[];
    messageId = listed[0]!.messageId;
    unreadId = listed[1]!.messageId; // never read before the server goes
    const full = expectToolOk(await call('get_message', { inboxId, messageId }));
    partId = (full['attachments'] as { partId: string }[])[0]!.partId;
    link = expectToolOk(await call('get_attachment', { inboxId, messageId, partId }))['url'] as string;
    await dovecot.stop();
  }, 120_000);

  afterAll(async () => {
    await app.close();
  });

  it('get_message, search_mailbox and load_older_messages answer provider_error; list_messages still works', async () => {
    const read = expectToolError(
      await call('get_message', { inboxId, messageId: unreadId }),
      'provider_error',
    );
    expect(read['message']).toMatch(/^The mailbox could not be read right now: /);
    expectToolError(await call('search_mailbox', { inboxId, query: 'Message' }), 'provider_error');
    expectToolError(await call('load_older_messages', { inboxId, folder: 'inbox' }), 'provider_error');
    expectToolError(await call('get_attachment', { inboxId, messageId: unreadId, partId }), 'provider_error');
    // A download link handed out before: a clear 502, not a 500.
    const res = await app.fetch(new Request(link));
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'provider_error' });
    expect(expectToolOk(await call('list_messages', { inboxId }))['messages']).toHaveLength(2);
  });

  it('a message read minutes ago is still readable: its content was kept (decision 0032)', async () => {
    const again = expectToolOk(await call('get_message', { inboxId, messageId }));
    expect(again['bodyUntrusted']).toContain(`Body ${String(again['subject']).replace('Message ', '')}`);
    expect(again['attachments']).toMatchObject([{ partId, filename: 'note.txt' }]);
  });
});
