import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { buildMessage } from '../rig/index.ts';
import { imapClient } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { PLAIN_IMAP_SERVER } from '../support/mail-backends.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0071, on a server with neither MOVE nor UIDPLUS (the plainest IMAP4rev1, as older and smaller providers
// run): a move is COPY, \Deleted and EXPUNGE, and EXPUNGE there removes every message marked \Deleted in the folder.
// The person's own mail deleted in a client that marks and keeps until asked (Thunderbird's "just mark it as
// deleted", mutt) went for good when an agent archived another message. It stays marked, and in its folder, now.
const USER = 'pia';
const PASSWORD = 'pia-password';

const message = (n: number) =>
  buildMessage({
    from: { address: `sender${String(n)}@example.org`, name: `Sender ${String(n)}` },
    to: [{ address: `${USER}@example.test` }],
    subject: `Message ${String(n)}`,
    date: new Date(Date.UTC(2026, 10, n)),
    messageId: `<plain${String(n)}@rig.test>`,
    text: `Body ${String(n)}.`,
  });

describe('a server without MOVE or UIDPLUS', () => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;

  /** Each folder's messages as the server holds them: Message-ID and whether marked \Deleted. */
  const mailbox = async (): Promise<Record<string, string[]>> => {
    const c = await imapClient(inbox.dovecot, USER, PASSWORD);
    try {
      const out: Record<string, string[]> = {};
      for (const path of ['INBOX', 'Archive']) {
        await c.mailboxOpen(path, { readOnly: true });
        const rows: string[] = [];
        if (c.mailbox !== false && c.mailbox.exists > 0)
          for await (const m of c.fetch('1:*', { envelope: true, flags: true }))
            rows.push(
              `${m.envelope?.messageId ?? ''}${m.flags?.has('\\Deleted') === true ? ' deleted' : ''}`,
            );
        out[path] = rows.sort();
      }
      return out;
    } finally {
      await c.logout();
    }
  };

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', USER, [1, 2, 3].map(message), {
      server: PLAIN_IMAP_SERVER,
      // Its watch asks for news every half second here (30 s in service, where imapflow's own fallback took 2 min).
      app: {
        overrides: {
          imapConnector: new ImapConnector({ insecureHosts: ['127.0.0.1'], withoutIdlePollMs: 500 }),
        },
      },
    });
    ({ call, inboxId } = inbox);
  }, 120_000);
  afterAll(() => inbox.close());

  it('offers what the test says it offers', async () => {
    const c = await imapClient(inbox.dovecot, USER, PASSWORD);
    try {
      expect([...c.capabilities.keys()]).toEqual(['IMAP4rev1']);
    } finally {
      await c.logout();
    }
  });

  it('an archive and its undo leave the message the person marked deleted where it was, still marked', async () => {
    // The person deletes message 1 in a client that only marks it.
    const c = await imapClient(inbox.dovecot, USER, PASSWORD);
    try {
      await c.mailboxOpen('INBOX');
      await c.messageFlagsAdd({ header: { 'message-id': '<plain1@rig.test>' } }, ['\\Deleted']);
    } finally {
      await c.logout();
    }
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }));
    const two = (listed['messages'] as { messageId: string; subject: string }[]).find(
      (m) => m.subject === 'Message 2',
    )!;
    const archived = expectToolOk(
      await call('act_on_messages', { action: 'archive', items: [{ inboxId, messageId: two.messageId }] }),
    );
    expect(await mailbox()).toEqual({
      INBOX: ['<plain1@rig.test> deleted', '<plain3@rig.test>'],
      Archive: ['<plain2@rig.test>'],
    });
    // The undo moves it back the same way, out of Archive.
    expectToolOk(await call('undo_action', { undoId: archived['undoId'] }));
    expect(await mailbox()).toEqual({
      INBOX: ['<plain1@rig.test> deleted', '<plain2@rig.test>', '<plain3@rig.test>'],
      Archive: [],
    });
  });

  it('notices new mail without IDLE and without a sync call, by asking', async () => {
    inbox.app.startBackground();
    await new Promise((r) => setTimeout(r, 1500)); // the first tick starts the watch
    await inbox.deliver(message(9));
    await expect
      .poll(
        async () =>
          (
            expectToolOk(await call('list_messages', { inboxId, limit: 5 }))['messages'] as {
              subject: string;
            }[]
          ).map((m) => m.subject),
        { timeout: 10_000, interval: 200 },
      )
      .toContain('Message 9');
  }, 30_000);
});

// Without ESEARCH a search's answer is a list of UIDs rather than ranges, and older mail is paged by listing the UIDs
// below the window: both paths no other server in the suite takes.
describe('reading past the window on a server without ESEARCH', () => {
  let inbox: InboxWithMail;
  afterAll(() => inbox.close());

  it('loads older mail in pages with no gap or repeat, and searches the whole mailbox', async () => {
    inbox = await inboxWithMail(
      'SQLite',
      'pim',
      Array.from({ length: 12 }, (_, i) => message(i + 1)),
      {
        server: PLAIN_IMAP_SERVER,
        app: { config: { syncWindow: 3 } },
      },
    );
    const { call, inboxId } = inbox;
    const subjects = async () =>
      (
        expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages'] as { subject: string }[]
      ).map((m) => m.subject);
    expect(await subjects()).toEqual(['Message 12', 'Message 11', 'Message 10']);
    for (let i = 0; i < 3; i++)
      expectToolOk(await call('load_older_messages', { inboxId, folder: 'inbox', count: 3 }));
    expect(await subjects()).toEqual(Array.from({ length: 12 }, (_, i) => `Message ${String(12 - i)}`));
    const last = expectToolOk(await call('load_older_messages', { inboxId, folder: 'inbox', count: 3 }));
    expect(last).toMatchObject({ loadedCount: 0, moreAvailable: false });
    // A line break or a tab in the query is a space (the server refused one: "the mailbox could not be read").
    for (const query of ['Message 1', 'Message\r\n1', 'Message\t1']) {
      const found = expectToolOk(await call('search_mailbox', { inboxId, query }));
      expect((found['messages'] as { subject: string }[]).map((m) => m.subject).sort()).toEqual([
        'Message 1',
        'Message 10',
        'Message 11',
        'Message 12',
      ]);
    }
  });
});

// Many servers make only Sent, Drafts, Trash and Junk. An archive there was refused ("no archive folder"); a mail
// client makes one on the first archive, and so does the service now (decision 0076) — under INBOX where the server
// keeps every folder there.
describe.each([
  ['a plain server', { ...PLAIN_IMAP_SERVER }, 'Archive'],
  ['folders under INBOX', { ...PLAIN_IMAP_SERVER, underInbox: true }, 'INBOX.Archive'],
] as const)('the first archive on %s without an archive folder', (_, server, path) => {
  let inbox: InboxWithMail;
  afterAll(() => inbox.close());

  it('makes the folder, moves the message there and back, and makes it once', async () => {
    inbox = await inboxWithMail('SQLite', 'arc', [message(1), message(2)], {
      server: { ...server, folders: ['Drafts', 'Sent', 'Trash', 'Junk'] },
    });
    const { call, inboxId } = inbox;
    const listed = expectToolOk(await call('list_messages', { inboxId }));
    const ids = (listed['messages'] as { messageId: string }[]).map((m) => m.messageId);
    const first = expectToolOk(
      await call('act_on_messages', { action: 'archive', items: [{ inboxId, messageId: ids[0] }] }),
    );
    expect((first['changed'] as unknown[]).length).toBe(1);
    expectToolOk(
      await call('act_on_messages', { action: 'archive', items: [{ inboxId, messageId: ids[1] }] }),
    );
    const c = await imapClient(inbox.dovecot, 'arc', 'arc-password');
    try {
      const archives = (await c.list()).filter((f) => /archive/i.test(f.path)).map((f) => f.path);
      expect(archives).toEqual([path]);
      expect(await c.status(path, { messages: true })).toMatchObject({ messages: 2 });
    } finally {
      await c.logout();
    }
    expectToolOk(await call('undo_action', { undoId: first['undoId'] }));
    const folders = expectToolOk(await call('list_folders', { inboxId, query: 'archive' }));
    expect(folders['folders']).toMatchObject([{ canonical: 'archive' }]);
  });
});
