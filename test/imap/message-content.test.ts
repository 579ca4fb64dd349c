import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { startWireTap, type WireTap } from '../rig/wire-tap.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Decision 0032: what get_message reads from the server is read once. Counted on the wire: the inbox reaches
// Dovecot through a tap that records every command the service sends.
describe('message content is read from the IMAP server once', () => {
  const USER = 'gil';
  const PASSWORD = 'gil-imap-password';
  let dovecot: Dovecot;
  let tap: WireTap;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  const message = (folder: string, i: number) => ({
    raw: buildMessage({
      from: { address: `s${String(i)}@example.org`, name: 'S' },
      to: [{ address: `${USER}@example.test` }],
      subject: `${folder} ${String(i)}`,
      date: new Date(Date.UTC(2026, 9, i)),
      messageId: `<g${folder}${String(i)}@rig.test>`,
      text: `Body of ${folder} ${String(i)}`,
      attachments: [{ filename: 'note.txt', contentType: 'text/plain', content: Buffer.from('hello') }],
    }),
    flags: [],
    internalDate: new Date(Date.UTC(2026, 9, i)),
  });

  /** Whole-message reads (`BODY.PEEK[]`, or the header-and-text read of a large one) sent so far. */
  const bodyFetches = () =>
    tap.sent
      .join('')
      .split('\r\n')
      .filter((l) => / UID FETCH /i.test(l) && /BODY(\.PEEK)?\[\]/i.test(l)).length;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({ maildir: dovecot.maildirOf(USER), messages: [1, 2].map((i) => message('Inbox', i)) });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      folder: 'Drafts',
      messages: [message('Draft', 3)],
    });
    tap = await startWireTap(dovecot);
    app = await createTestApp();
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, {
      dovecot: { ...dovecot, port: tap.port },
      user: USER,
      password: PASSWORD,
    });
    expectToolOk(await call('sync_inbox', { inboxId, folders: ['inbox', 'drafts'] }));
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await tap.close();
    await dovecot.stop();
  });

  const idOf = async (subject: string) => {
    const listed = expectToolOk(await call('list_messages', { inboxId }))['messages'] as {
      messageId: string;
      subject: string;
    }[];
    return listed.find((m) => m.subject === subject)!.messageId;
  };

  it('a second read and an attachment link take nothing more from the server; each answer has its own nonce', async () => {
    const messageId = await idOf('Inbox 1');
    const before = bodyFetches();
    const first = expectToolOk(await call('get_message', { inboxId, messageId }));
    expect(bodyFetches()).toBe(before + 1);
    const second = expectToolOk(await call('get_message', { inboxId, messageId }));
    const link = expectToolOk(
      await call('get_attachment', {
        inboxId,
        messageId,
        partId: (first['attachments'] as { partId: string }[])[0]!.partId,
      }),
    );
    expect(bodyFetches()).toBe(before + 1);
    expect(link['filename']).toBe('note.txt');
    const nonce = (r: Record<string, unknown>) =>
      /nonce="([a-z0-9]+)"/.exec(r['bodyUntrusted'] as string)?.[1];
    expect(second['bodyUntrusted']).toContain('Body of Inbox 1');
    expect(nonce(second)).toBeDefined();
    expect(nonce(second)).not.toBe(nonce(first));
    const { bodyUntrusted: _a, ...restFirst } = first;
    const { bodyUntrusted: _b, ...restSecond } = second;
    expect(restSecond).toEqual(restFirst);
  });

  it('flags come from the index, not the kept content: a read after starring shows the star', async () => {
    const messageId = await idOf('Inbox 2');
    expect(expectToolOk(await call('get_message', { inboxId, messageId }))['starred']).toBe(false);
    expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'content-test', force: true }));
    expectToolOk(await call('star_messages', { inboxId, messageIds: [messageId], starred: true }));
    const before = bodyFetches();
    expect(expectToolOk(await call('get_message', { inboxId, messageId }))['starred']).toBe(true);
    expect(bodyFetches()).toBe(before);
  });

  it('a draft is read afresh every time (a provider may edit one in place)', async () => {
    const messageId = await idOf('Draft 3');
    const before = bodyFetches();
    for (let i = 0; i < 2; i++)
      expect(expectToolOk(await call('get_message', { inboxId, messageId }))['bodyUntrusted']).toContain(
        'Body of Draft 3',
      );
    expect(bodyFetches()).toBe(before + 2);
  });
});
