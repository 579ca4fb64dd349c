import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { buildMessage, startDovecot, type Dovecot } from '../rig/index.ts';
import { startWireTap, type WireTap } from '../rig/wire-tap.ts';
import { connectImapInbox, deliverTo } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Decision 0100: reading a large message takes from the server what can be shown — a body is cut at 50,000
// characters — and no more. Counted on the wire: the inbox reaches Dovecot through a tap that counts what the server
// sends. The text is random (base64 of random bytes), so compression on the line cannot hide what was read.
describe('a large message is read without what cannot be shown', () => {
  const USER = 'hal';
  const PASSWORD = 'hal-imap-password';
  const MB = 1024 * 1024;
  const words = (mb: number, first: string) =>
    `${first}\r\n${randomBytes(mb * MB * 0.75).toString('base64')}`;
  let dovecot: Dovecot;
  let tap: WireTap;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const header = (subject: string) =>
      `From: Sam <sam@example.org>\r\nTo: ${USER}@example.test\r\nSubject: ${subject}\r\n` +
      `Message-ID: <${subject.replace(/\W/g, '')}@rig.test>\r\nDate: Mon, 30 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n`;
    await deliverTo(dovecot, USER, PASSWORD)(
      // One part, 12 MB of text: a log a server mailed, say.
      Buffer.from(
        `${header('One long part')}Content-Type: text/plain\r\n\r\n${words(12, 'The log begins.')}\r\n`,
      ),
      // An HTML part of 12 MB (images inlined as data) beside an attachment of 6 MB.
      buildMessage({
        from: { address: 'sam@example.org', name: 'Sam' },
        to: [{ address: `${USER}@example.test` }],
        subject: 'A heavy newsletter',
        date: new Date(Date.UTC(2026, 10, 30)),
        messageId: '<heavy@rig.test>',
        html: `<p>This week in pictures.</p><p>${words(12, '')}</p>`,
        attachments: [
          { filename: 'extra.bin', contentType: 'application/octet-stream', content: randomBytes(6 * MB) },
        ],
      }),
      // A newsletter of 11 MB, over what the unsubscribe check reads whole (10 MB).
      buildMessage({
        from: { address: 'news@example.org', name: 'News' },
        to: [{ address: `${USER}@example.test` }],
        subject: 'The big issue',
        date: new Date(Date.UTC(2026, 10, 29)),
        messageId: '<big-issue@rig.test>',
        list: {
          id: 'big.example.org',
          unsubscribeHttps: 'https://example.org/u/big',
          unsubscribeMailto: 'mailto:leave@example.org?subject=stop',
          oneClick: true,
        },
        text: 'This issue comes with the annual report.',
        attachments: [
          { filename: 'report.pdf', contentType: 'application/pdf', content: randomBytes(11 * MB) },
        ],
      }),
    );
    tap = await startWireTap(dovecot);
    app = await createTestApp();
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, {
      dovecot: { ...dovecot, port: tap.port },
      user: USER,
      password: PASSWORD,
    });
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await tap.close();
    await dovecot.stop();
  });

  const receivedSoFar = () => tap.received.reduce((a, b) => a + b, 0);

  it.each([
    ['One long part', 'The log begins.'],
    ['A heavy newsletter', 'This week in pictures.'],
  ])('%s: its text, with at most a few megabytes read', async (subject, first) => {
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }));
    const m = (listed['messages'] as { messageId: string; subject: string }[]).find(
      (x) => x.subject === subject,
    );
    const before = receivedSoFar();
    const read = expectToolOk(await call('get_message', { inboxId, messageId: m!.messageId }));
    expect(read['bodyUntrusted']).toContain(first);
    expect(read['bodyTruncated']).toBe(true);
    expect(receivedSoFar() - before).toBeLessThan(5 * MB);
  });

  it('a newsletter too large for the unsubscribe check is refused in words, from the index, nothing downloaded', async () => {
    // Before, the check found it too large at the server and answered message_not_found (decision 0099).
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }));
    const m = (listed['messages'] as { messageId: string; subject: string }[]).find(
      (x) => x.subject === 'The big issue',
    );
    const before = receivedSoFar();
    const r = expectToolError(
      await call('propose_unsubscribe', { inboxId, messageId: m!.messageId }),
      'unsubscribe_unavailable',
    );
    expect(r['details']).toMatchObject({
      reason: 'too_large',
      fallback: { link: 'https://example.org/u/big', mailto: { to: 'leave@example.org', subject: 'stop' } },
    });
    expect(r['message']).toContain('over 10 MB');
    expect(receivedSoFar() - before).toBeLessThan(64 * 1024);
  });
});
