import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFullMessage, readRawMessage } from '../../src/adapters/mail/imap/message-reader.ts';
import { fetchSummaries } from '../../src/adapters/mail/imap/summary-fetch.ts';
import { buildMessage, startDovecot, type Dovecot } from '../rig/index.ts';
import { imapClient } from '../support/imap-inbox.ts';

// Found by "an agent and another mail client on the same messages" (test/mail/another-client.test.ts), seed
// 259305806 on Dovecot: the person's phone deleted a message while a sync fetched it. Dovecot answers such a FETCH
// from its index for what it still knows (the envelope) and NIL for the bytes, which imapflow gives as `false`; the
// summary decoded `false` as the message's first bytes, threw a TypeError, and sync_inbox answered provider_error
// "the mail server refused". Deterministic here: the other session expunges before this one's FETCH, which has not
// heard of it yet.
describe('a message another session expunged, fetched before this session hears of it', () => {
  const USER = 'gus';
  const PASSWORD = 'a long enough password';
  let dovecot: Dovecot;
  let mine: ImapFlow;
  let phone: ImapFlow;
  let uids: number[] = [];

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    [mine, phone] = await Promise.all([
      imapClient(dovecot, USER, PASSWORD),
      imapClient(dovecot, USER, PASSWORD),
    ]);
  });

  afterAll(async () => {
    await Promise.all([mine.logout(), phone.logout()]);
    await dovecot.stop();
  });

  beforeEach(async () => {
    await phone.mailboxOpen('INBOX');
    uids = [];
    for (let i = 0; i < 2; i++) {
      const added = await phone.append(
        'INBOX',
        buildMessage({
          from: { name: 'Ada', address: 'ada@example.org' },
          to: [{ address: `${USER}@example.test` }],
          subject: `Note ${String(i)}`,
          date: new Date(Date.UTC(2026, 10, 28, 9, i)),
          messageId: `<expunged-elsewhere-${String(Date.now())}-${String(i)}@example.org>`,
          text: `Hello there, note ${String(i)}.`,
        }),
      );
      uids.push(added === false ? 0 : (added.uid ?? 0));
    }
    // This session opens the folder and knows both messages; then the phone deletes the second.
    await mine.mailboxOpen('INBOX');
    await phone.messageDelete(String(uids[1]), { uid: true });
  });

  it('a sync’s summaries: the message that is left, and no error', async () => {
    const summaries = await fetchSummaries(mine, uids);
    expect(summaries.map((s) => s.ref)).toContain(String(uids[0]));
    expect(summaries.find((s) => s.ref === String(uids[0]))?.snippet).toBe('Hello there, note 0.');
  });

  it('get_message’s read: the message is not there (undefined), not an error', async () => {
    expect(await readFullMessage(mine, uids[1]!)).toBeUndefined();
    expect(await readRawMessage(mine, uids[1]!, 1_000_000)).toBeUndefined();
  });
});
