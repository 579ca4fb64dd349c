import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asExchangeStoresIt, ONE_CLICK_HEADERS } from '../rig/dkim-fixtures.ts';
import { buildMessage } from '../rig/message-builder.ts';
import { dovecotBackend, graphBackend, type Backend } from '../support/mail-backends.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// Exchange Online (Microsoft 365, Outlook.com) checks DKIM when mail arrives, writes its verdict on top, then rewrites
// the stored HTML: the MIME read back through Graph or its IMAP fails the body hash of nearly every HTML newsletter,
// and one-click unsubscribe was never offered for them. The header signature is checked here and Exchange's verdict
// taken for the body (decision 0157) — through the production path of the Graph adapter and of the IMAP one.
describe.each([
  ['Microsoft 365 (Graph)', () => graphBackend()],
  ['IMAP (Dovecot), mail as Outlook.com serves it', () => dovecotBackend()],
])('one-click unsubscribe from an HTML newsletter the provider rewrote, on %s', (_where, backend) => {
  let be: Backend;
  const bySender = new Map<string, string>();

  const newsletter = async (local: string, verdict: string) => {
    const lists = be.lists!;
    const signed = await lists.signer.sign(
      buildMessage({
        from: { name: 'Rewritten News', address: `${local}@lists.example.test` },
        to: [{ address: 'pat@contoso.test' }],
        subject: `${local}: this week`,
        date: new Date(Date.UTC(2026, 10, 2, 8)),
        messageId: `<${local}@lists.example.test>`,
        list: {
          id: `${local}.lists.example.test`,
          unsubscribeHttps: lists.link(`/u/${local}`),
          oneClick: true,
        },
        text: 'This week, in plain text.',
        html: '<html><head><title>This week</title></head><body><p>This week.</p></body></html>',
      }),
      ONE_CLICK_HEADERS,
    );
    return asExchangeStoresIt(signed, verdict);
  };

  beforeAll(async () => {
    be = await backend();
    await be.outside!.deliver(
      await newsletter('vouched', 'dkim=pass (signature was verified) header.d=lists.example.test'),
    );
    await be.outside!.deliver(
      await newsletter('unvouched', 'dkim=fail (body hash did not verify) header.d=lists.example.test'),
    );
    expectToolOk(await be.agent.call('sync_inbox', { inboxId: be.inboxId }));
    const senders = expectToolOk(
      await be.agent.call('review_unsubscribes', { inbox: be.inboxId, limit: 100 }),
    )['senders'] as { messageId: string; sender: { address: string } }[];
    for (const s of senders) bySender.set(s.sender.address, s.messageId);
  }, 180_000);
  afterAll(() => be.close());

  it('offered when the provider verified the signer on arrival, and the one request is made', async () => {
    const proposed = expectToolOk(
      await be.agent.call('propose_unsubscribe', {
        inboxId: be.inboxId,
        messageId: bySender.get('vouched@lists.example.test'),
      }),
    );
    expect(proposed).toMatchObject({ host: 'unsub.lists.example.test', signedBy: 'lists.example.test' });
    const before = be.lists!.requests.length;
    const done = expectToolOk(
      await be.agent.call('confirm_unsubscribe', {
        pendingUnsubscribeId: proposed['pendingUnsubscribeId'],
        approvalCode: proposed['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expect(done).toMatchObject({ unsubscribed: true, result: 'done' });
    expect(be.lists!.requests.slice(before)).toMatchObject([
      { method: 'POST', url: '/u/vouched', body: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('not offered when the provider found the signature broken on arrival: the link by hand instead', async () => {
    const r = expectToolError(
      await be.agent.call('propose_unsubscribe', {
        inboxId: be.inboxId,
        messageId: bySender.get('unvouched@lists.example.test'),
      }),
      'unsubscribe_unavailable',
    );
    expect(r['details']).toMatchObject({ reason: 'unsigned' });
    expect(JSON.stringify(r['details'])).toContain('/u/unvouched');
  });
});
