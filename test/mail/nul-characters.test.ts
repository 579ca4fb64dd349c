import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// A NUL character is text SQLite keeps and PostgreSQL refuses ("invalid byte sequence for encoding UTF8: 0x00").
// A sender can put one in any header as an encoded word (=?utf-8?B?…AA…?=), in plain ASCII that every server takes.
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const word = (s: string) => `=?utf-8?B?${b64(s)}?=`;

function nulMessage(n: number): Buffer {
  return Buffer.from(
    [
      `From: ${word('Eve\u0000Null')} <eve@example.test>`,
      'To: owner@example.test',
      `Subject: ${word(`Hi\u0000there ${String(n)}`)}`,
      `Message-ID: <nul-${String(n)}@rig.test>`,
      `List-Id: ${word('News\u0000letter')} <news.example.test>`,
      'List-Unsubscribe: <https://news.example.test/u?x=1>',
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      'Date: Mon, 02 Nov 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      b64('Body with a\u0000NUL in it.'),
      '',
    ].join('\r\n'),
  );
}

describe.each(['SQLite', 'PostgreSQL'])(
  'mail with NUL characters in its headers and body, on %s',
  (engine) => {
    let inbox: InboxWithMail;
    let call: InboxWithMail['call'];
    let inboxId: string;
    beforeAll(async () => {
      inbox = await inboxWithMail(engine, 'nul', [nulMessage(1), nulMessage(2)]);
      ({ call, inboxId } = inbox);
    }, 60_000);
    afterAll(() => inbox.close());

    it('syncs, lists, searches, reads and finds the list, with the NUL gone from what the agent sees', async () => {
      expectToolOk(await call('sync_inbox', { inboxId }));
      const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }));
      const messages = listed['messages'] as { messageId: string; subject: string }[];
      expect(messages).toHaveLength(2);
      const text = JSON.stringify(listed);
      expect(text).not.toContain('\\u0000');
      expect(text).toContain('there 1');
      const found = expectToolOk(await call('search_mailbox', { inboxId, query: 'there' }));
      expect((found['messages'] as unknown[]).length).toBe(2);
      const one = expectToolOk(await call('get_message', { inboxId, messageId: messages[0]!.messageId }));
      expect(JSON.stringify(one)).not.toContain('\\u0000');
      expect(JSON.stringify(one)).toContain('NUL in it');
      const lists = expectToolOk(await call('review_unsubscribes', { inbox: inboxId }));
      expect(JSON.stringify(lists)).toContain('news.example.test');
      expect(JSON.stringify(lists)).not.toContain('\\u0000');
      // Unsigned, so refused in words (the DKIM rule), with the list's link: no NUL in those either.
      const proposed = await call('propose_unsubscribe', { inboxId, messageId: messages[0]!.messageId });
      expect(proposed.body['error']).toBe('unsubscribe_unavailable');
      expect(JSON.stringify(proposed.body)).not.toContain('\\u0000');
    });
  },
);
