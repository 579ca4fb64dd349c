import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMessage } from '../rig/index.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// Decision 0070: a mail client shows a sender's internationalised domain in Unicode (anna@müller.de) where the
// header may carry its ASCII form (anna@xn--mller-kva.de), or the other way round (an SMTPUTF8 sender). The person
// copies what they see; the rules read what arrived. The VIP rule, the blocklist and the known-good list now match
// either spelling; before, a VIP typed as seen never matched, and a Unicode domain could not be blocked at all.
const USER = 'ida';

const mail = (from: string, id: string, subject: string) =>
  Buffer.from(
    [
      `From: ${from}`,
      `To: ${USER}@example.test`,
      `Subject: ${subject}`,
      'Date: Mon, 02 Nov 2026 10:00:00 +0000',
      `Message-ID: <${id}@rig.test>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hallo.',
      '',
    ].join('\r\n'),
    'utf8',
  );

describe('senders at internationalised domains', () => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;
  const messageOf = async (subject: string): Promise<string> => {
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 50 }));
    return (listed['messages'] as { messageId: string; subject: string }[]).find(
      (m) => m.subject === subject,
    )!.messageId;
  };

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', USER, [
      mail('Anna Müller <anna@xn--mller-kva.de>', 'ascii-form', 'Punycode in the header'),
      mail('Jürgen <jurgen@bücher.example>', 'unicode-form', 'Unicode in the header'),
      // Decision 0106: addresses every client shows as boss@corp.test.
      mail('Boss <bo\u200bss@corp.test>', 'zero-width', 'Zero-width space'),
      mail('Boss <\u202eboss@corp.test>', 'override', 'Direction override'),
      mail('Boss <boss@corp.test\u2060>', 'word-joiner', 'Word joiner'),
    ]);
    ({ call, inboxId } = inbox);
  }, 120_000);
  afterAll(() => inbox.close());

  it('a VIP added as the mail client shows it protects mail whose header spells it the other way', async () => {
    expectToolOk(await call('add_vip', { emails: ['Anna@Müller.de'], domains: ['xn--bcher-kva.example'] }));
    for (const subject of ['Punycode in the header', 'Unicode in the header'])
      expectToolError(
        await call('trash_message', { inboxId, messageId: await messageOf(subject) }),
        'vip_confirmation_required',
      );
    expectToolOk(
      await call('remove_vip', {
        emails: ['anna@müller.de'],
        domains: ['xn--bcher-kva.example'],
        confirmed: true,
      }),
    );
    // A Unicode domain is a domain: the VIP list and the blocklist take it as written.
    expectToolOk(await call('add_vip', { domains: ['Bücher.example'] }));
    expect(expectToolOk(await call('list_vips'))['domains']).toEqual(['bücher.example']);
    expectToolError(
      await call('trash_message', { inboxId, messageId: await messageOf('Unicode in the header') }),
      'vip_confirmation_required',
    );
    expectToolOk(await call('remove_vip', { domains: ['bücher.example'], confirmed: true }));
    const trashed = expectToolOk(
      await call('trash_message', { inboxId, messageId: await messageOf('Unicode in the header') }),
    );
    expectToolOk(await call('undo_action', { undoId: trashed['undoId'] }));
  });

  it('an address with characters nobody sees is the address the person sees: listed so, and a VIP’s (decision 0106)', async () => {
    const subjects = ['Zero-width space', 'Direction override', 'Word joiner'];
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages'] as {
      subject: string;
      from: { address: string };
    }[];
    for (const subject of subjects)
      expect(listed.find((m) => m.subject === subject)?.from.address, subject).toBe('boss@corp.test');
    expectToolOk(await call('add_vip', { emails: ['boss@corp.test'] }));
    for (const subject of subjects)
      expectToolError(
        await call('trash_message', { inboxId, messageId: await messageOf(subject) }),
        'vip_confirmation_required',
      );
    expectToolOk(await call('remove_vip', { emails: ['boss@corp.test'], confirmed: true }));
    const stored = await inbox.app.db.kysely
      .selectFrom('messages')
      .select('from_address')
      .where('inbox_id', '=', inboxId)
      .where('from_address', 'like', '%corp.test%')
      .execute();
    expect(stored.map((r) => r.from_address)).toEqual(['boss@corp.test', 'boss@corp.test', 'boss@corp.test']);
  });

  it('a domain blocked in Unicode screens what arrives from its ASCII form', async () => {
    expectToolOk(
      await call('update_triage_profile', {
        patch: { defaults: { junk: { blockedDomains: ['müller.de'] } } },
      }),
    );
    // A sync the previous case's changes woke (IDLE) reads the rules as they were when it began; one that is still
    // running when the mail lands would index it unscreened. sync_inbox waits for any running sync, then runs again.
    expectToolOk(await call('sync_inbox', { inboxId }));
    await inbox.deliver(
      mail('Offers <offers@shop.xn--mller-kva.de>', 'blocked', 'Angebot'),
      buildMessage({
        from: { address: 'someone@example.org', name: 'Someone' },
        to: [{ address: `${USER}@example.test` }],
        subject: 'Fine',
        date: new Date(Date.UTC(2026, 10, 3)),
        messageId: '<fine@rig.test>',
        text: 'Hi.',
      }),
    );
    expectToolOk(await call('sync_inbox', { inboxId }));
    const review = expectToolOk(await call('review_screened', { inbox: inboxId }));
    expect(
      (review['rows'] as { sender: { address: string }; source: string }[]).map((r) => [
        r.sender.address,
        r.source,
      ]),
    ).toEqual([['offers@shop.xn--mller-kva.de', 'blocklist']]);
  });
});
