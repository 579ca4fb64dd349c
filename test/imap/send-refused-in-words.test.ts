import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolError } from '../support/tool-caller.ts';

// A submission server that refuses a message says why in its reply — "550 5.7.1 Sender address rejected: not owned
// by user" when the address is not one the login may send as — and the refusal read only "the mail server answered
// 550": nothing the person could act on. Its short reason is now kept (printable, at most 100 characters).
const USER = 'ray';
const PASSWORD = 'ray-imap-password';

describe('a message the submission server refuses', () => {
  let box: SendingInbox;
  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD, {
      sink: {
        refuseData: {
          code: 550,
          text: '5.7.1 Sender address rejected: not owned by user ray\r\n\u0000<script>',
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await box.close();
  });

  it('is not sent, and the refusal gives the server’s reason in printable words', async () => {
    const refused = expectToolError(await box.send(await box.draft('Hi')), 'provider_error');
    expect(refused['details']).toEqual({ status: 'not_sent' });
    expect(refused['message']).toContain(
      'the mail server answered 550 (Sender address rejected: not owned by user ray',
    );
    expect(refused['message']).not.toMatch(/5\.7\.1|[\u0000\r\n]/);
    expect(refused['sayToHuman']).toContain(
      'The email was not sent: the mail server answered 550 (Sender address',
    );
    expect(box.sink.received).toEqual([]);
    expect(await box.subjects('Drafts')).toEqual(['Hi']);
  });

  it('the console says the same when the person presses Send there, once', async () => {
    const d = await box.draft('Hi again');
    await box.web.get('/waiting');
    const res = await box.web.post('/waiting/send', { id: d['pendingSendId'] as string });
    expect(res.headers.get('location')).toBe('/waiting?error=provider_error');
    await box.web.get('/waiting?error=provider_error');
    expect(box.web.lastHtml).toContain('Sender address rejected: not owned by user ray');
    expect(box.web.lastHtml).not.toContain('<script>'); // the server's words are text on the page, escaped
    expect(box.web.lastHtml).not.toContain('The mail server refused or did not answer');
    await box.web.get('/waiting?error=provider_error'); // shown once; the general words after
    expect(box.web.lastHtml).not.toContain('Sender address rejected');
    expect(box.sink.received).toEqual([]);
  });
});
