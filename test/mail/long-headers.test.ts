import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0061: a sender's header of several kilobytes of random text (which no compression shrinks) in a field
// the index looks rows up by — the From address, the thread, the List-Id. PostgreSQL refuses an index entry over
// ~2,700 bytes: before, one such message failed the whole folder's sync there. Both engines, the same answers.
const random = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const ROOT = random(6000);

function message(n: number): Buffer {
  return Buffer.from(
    [
      `From: "${random(3000)}" <${random(5000)}@example.test>`,
      'To: owner@example.test',
      `Subject: Long headers ${String(n)}`,
      `Message-ID: <${random(6000)}@rig.test>`,
      `References: <${ROOT}@rig.test>`,
      `In-Reply-To: <${ROOT}@rig.test>`,
      `List-Id: Long <${random(3000)}.example.test>`,
      'Date: Mon, 02 Nov 2026 10:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Body ${String(n)}.`,
      '',
    ].join('\r\n'),
  );
}

describe.each(['SQLite', 'PostgreSQL'])('mail with headers of several kilobytes, on %s', (engine) => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;
  beforeAll(async () => {
    inbox = await inboxWithMail(engine, 'longh', [message(1), message(2)]);
    ({ call, inboxId } = inbox);
  }, 60_000);
  afterAll(() => inbox.close());

  it('syncs them; the address is kept to 320 characters and the thread to a short id both messages share', async () => {
    expectToolOk(await call('sync_inbox', { inboxId }));
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }));
    const messages = listed['messages'] as {
      messageId: string;
      threadId: string;
      from: { address: string };
    }[];
    expect(messages).toHaveLength(2);
    const [a, b] = messages as [(typeof messages)[0], (typeof messages)[0]];
    expect(a.threadId).toMatch(/^<[0-9a-f]{40}@long-thread-id\.invalid>$/);
    expect(b.threadId).toBe(a.threadId);
    expect(a.from.address).toHaveLength(320);

    // The thread id handed back writes a reply in that thread; the sender's mail can be acted on as a whole.
    const draft = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Re',
        text: 'Hi',
        threadId: a.threadId,
      }),
    );
    expect((draft['draft'] as { threadId: string }).threadId).toBe(a.threadId);
    expectToolOk(await call('get_message', { inboxId, messageId: a.messageId }));
    expectToolOk(
      await call('act_on_messages', { action: 'archive', items: [{ inboxId, messageId: b.messageId }] }),
    );
    const lists = expectToolOk(await call('review_unsubscribes', { inbox: inboxId }));
    expect((lists['senders'] as unknown[]).length).toBeGreaterThan(0);
  });
});
