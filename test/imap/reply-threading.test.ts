import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, imapClient } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk } from '../support/tool-caller.ts';

// Decision 0109: a reply points at mail that was sent or received. The newest message of a thread may be the agent's
// own unsent draft, or a stranger's message in Junk that quotes the thread's Message-IDs; neither is what the reply
// answers. Checked on the draft's copy as Dovecot holds it.

const USER = 'alice';
const PASSWORD = 'alice-imap-password';
const START = Date.UTC(2026, 8, 1);
const at = (hours: number) => new Date(START + hours * 3_600_000);

describe('what a reply in a thread answers', () => {
  let dovecot: Dovecot;
  let app: App;
  let call: Awaited<ReturnType<typeof agentOn>>['call'];
  let inboxId: string;

  /** In-Reply-To and References of the draft copy written for this draft, read straight from Dovecot. */
  async function replyHeaders(draft: Record<string, unknown>) {
    const c = await imapClient(dovecot, USER, PASSWORD);
    try {
      const lock = await c.getMailboxLock('Drafts');
      try {
        const m = await c.fetchOne(String(draft['providerDraftId']), { source: true }, { uid: true });
        const head = (m === false || m === undefined ? '' : m.source!.toString('latin1'))
          .split('\r\n\r\n')[0]!
          .replace(/\r\n[ \t]+/g, ' ');
        const value = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? null;
        return { inReplyTo: value('In-Reply-To'), references: value('References') };
      } finally {
        lock.release();
      }
    } finally {
      await c.logout();
    }
  }

  async function threadOf(folder: string, subject: string): Promise<string> {
    const listed = expectToolOk(await call('list_messages', { inboxId, folder, limit: 50 }))['messages'] as {
      subject: string;
      threadId: string;
    }[];
    return listed.find((m) => m.subject === subject)!.threadId;
  }

  const reply = async (threadId: string, text: string) =>
    expectToolOk(
      await call('create_draft', { inboxId, to: 'planner@corp.test', subject: 'Re: Plan', text, threadId }),
    )['draft'] as Record<string, unknown>;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const mail = (h: number, from: string, subject: string, id: string, refs: string[] = []) => ({
      raw: buildMessage({
        from: { address: from },
        to: [{ address: `${USER}@example.test` }],
        subject,
        date: at(h),
        messageId: id,
        ...(refs.length > 0 && { inReplyTo: refs.at(-1)!, references: refs }),
        text: subject,
      }),
      internalDate: at(h),
    });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: [
        mail(0, 'planner@corp.test', 'Plan', '<t1@rig.test>'),
        mail(1, 'planner@corp.test', 'Re: Plan', '<t2@rig.test>', ['<t1@rig.test>']),
      ],
    });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      folder: 'Junk',
      messages: [
        // Newer than the thread, quoting its ids: a stranger's message the person never accepted.
        mail(5, 'stranger@elsewhere.test', 'Re: Plan', '<j1@elsewhere.test>', [
          '<t1@rig.test>',
          '<t2@rig.test>',
        ]),
        mail(6, 'offers@elsewhere.test', 'Only in Junk', '<j2@elsewhere.test>'),
      ],
    });
    app = await createTestApp();
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
    expectToolOk(await call('sync_inbox', { inboxId, folders: ['INBOX', 'Drafts', 'Junk'] }));
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

  it('answers the newest mail received, not a message in Junk that quotes the thread', async () => {
    const threadId = await threadOf('inbox', 'Re: Plan');
    expect(await threadOf('spam', 'Re: Plan')).toBe(threadId);
    expect(await replyHeaders(await reply(threadId, 'First answer'))).toEqual({
      inReplyTo: '<t2@rig.test>',
      references: '<t1@rig.test> <t2@rig.test>',
    });
  });

  it('answers the newest mail received, not the agent’s own draft synced into the thread', async () => {
    const threadId = await threadOf('inbox', 'Re: Plan');
    expectToolOk(await call('sync_inbox', { inboxId, folders: ['INBOX', 'Drafts', 'Junk'] }));
    const drafts = expectToolOk(await call('list_messages', { inboxId, folder: 'drafts', limit: 50 }))[
      'messages'
    ] as { threadId: string }[];
    expect(drafts.map((d) => d.threadId)).toEqual([threadId]);
    expect(await replyHeaders(await reply(threadId, 'Second answer'))).toEqual({
      inReplyTo: '<t2@rig.test>',
      references: '<t1@rig.test> <t2@rig.test>',
    });
  });

  it('a thread that is only in Junk is answered there', async () => {
    const threadId = await threadOf('spam', 'Only in Junk');
    expect(await replyHeaders(await reply(threadId, 'Answer to junk'))).toEqual({
      inReplyTo: '<j2@elsewhere.test>',
      references: '<j2@elsewhere.test>',
    });
  });
});
