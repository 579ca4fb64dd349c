import { domainToASCII } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_MAILBOX, type Backend } from '../support/mail-backends.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0151: an address with letters beyond ASCII before the @ (RFC 6531: jürgen@…, 用户@…) was refused at
// create_draft. It is now written to on every kind of mailbox — through SMTP with SMTPUTF8 (IMAP), Gmail's API, Graph
// and the demo — and the sent copy, read back through the provider as another client reads it, names it.

/** An address with its domain in ASCII, the local part as it is: the two forms a provider may give back. */
const asSent = (address: string) => {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}@${domainToASCII(address.slice(at + 1))}`;
};

describe.each(Object.entries(EVERY_MAILBOX))(
  'an address beyond ASCII before the @, on %s',
  (_name, start) => {
    let be: Backend;
    beforeAll(async () => {
      be = await start();
    }, 120_000);
    afterAll(() => be.close());

    it('is drafted, sent once approved, and named in the sent copy', async () => {
      const { call } = be.agent;
      const inboxId = be.inboxId;
      const subject = 'Grüße an Jürgen und 用户';
      expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
      const draft = expectToolOk(
        await call('create_draft', {
          inboxId,
          to: 'Jürgen <jürgen@Müller.de>, 用户@例子.广告',
          subject,
          text: 'Hallo.',
        }),
      );
      expect((draft['draft'] as { to: string })['to']).toBe(
        '"Jürgen" <jürgen@xn--mller-kva.de>, 用户@xn--fsqu00a.xn--4rr70v',
      );
      expect(
        expectToolOk(
          await call('send_draft', {
            pendingSendId: draft['pendingSendId'],
            approvalCode: draft['approvalCode'],
            humanApprovedInChat: true,
          }),
        ),
      ).toMatchObject({ sent: true });
      expectToolOk(await call('sync_inbox', { inboxId }));
      const folders = expectToolOk(await call('list_folders', { inboxId }))['folders'] as {
        id: string;
        canonical: string | null;
      }[];
      const sent = folders.find((f) => f.canonical === 'sent')!;
      expectToolOk(await call('sync_inbox', { inboxId, folders: [sent.id] }));
      const listed = expectToolOk(await call('list_messages', { inboxId, folder: 'sent', limit: 50 }))[
        'messages'
      ] as { messageId: string; subject: string }[];
      const copy = listed.filter((m) => m.subject === subject);
      expect(copy).toHaveLength(1);
      const read = expectToolOk(await call('get_message', { inboxId, messageId: copy[0]!.messageId }));
      expect((read['to'] as { address: string }[]).map((a) => asSent(a.address))).toEqual([
        'jürgen@xn--mller-kva.de',
        '用户@xn--fsqu00a.xn--4rr70v',
      ]);
    });
  },
);
