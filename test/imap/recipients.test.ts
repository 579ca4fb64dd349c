import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// A submission server may refuse one address at RCPT TO and take the message for the others. No bounce will ever
// say so — the refusal is the sending client's to hear — and a send answered "Sent." left the person believing
// everyone got it. The agent's result, its words to the person and the console's now name the addresses refused.
const USER = 'rex';
const PASSWORD = 'rex-imap-password';
const NOBODY = 'nobody@example.org';

describe('a send the mail server takes for some recipients and refuses for others', () => {
  let box: SendingInbox;
  let sink: SendingInbox['sink'];
  let call: SendingInbox['call'];
  let web: SendingInbox['web'];
  let inboxId: string;

  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD, { sink: { refuseRecipients: [NOBODY] } });
    ({ sink, call, web, inboxId } = box);
  }, 120_000);

  afterAll(async () => {
    await box.close();
  });

  const draft = async (subject: string) =>
    expectToolOk(
      await call('create_draft', { inboxId, to: `friend@example.org, ${NOBODY}`, subject, text: 'Hello.' }),
    );

  it('send_draft says which address did not get it, to the agent and in its words for the person', async () => {
    const d = await draft('From chat');
    const sent = expectToolOk(
      await call('send_draft', {
        pendingSendId: d['pendingSendId'],
        approvalCode: d['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    expect(sent).toMatchObject({ sent: true, refusedRecipients: [NOBODY] });
    expect(sent['sayToHuman']).toBe(
      `Sent, but not to ${NOBODY}: your mail server refused that address, so it will not get it. Check it before sending again.`,
    );
    await sink.waitFor(1);
    expect(sink.received[0]!.to).toEqual(['friend@example.org']);
  });

  it('the console says so after the person presses Send', async () => {
    const d = await draft('From the console');
    await web.get('/waiting');
    const res = await web.post('/waiting/send', { id: d['pendingSendId'] as string });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toBe(`/waiting?refused=${encodeURIComponent(NOBODY)}`);
    await web.get(location);
    expect(web.lastHtml).toContain(`Sent, but not to ${NOBODY}: your mail server refused that address`);
    await sink.waitFor(2);
    expect(sink.received[1]!.to).toEqual(['friend@example.org']);
    // A link made elsewhere cannot put its own words there: only addresses are shown.
    await web.get(`/waiting?refused=${encodeURIComponent('Your account is closed, call 555')}`);
    expect(web.lastHtml).not.toContain('Sent, but not to');
  });

  it('an address at an internationalised domain goes out in its ASCII form, in the envelope and the header', async () => {
    const d = expectToolOk(
      await call('create_draft', { inboxId, to: 'Anna <anna@Müller.de>', subject: 'Grüße', text: 'Hallo.' }),
    );
    expect((d['draft'] as { to: string })['to']).toBe('"Anna" <anna@xn--mller-kva.de>');
    expectToolOk(
      await call('send_draft', {
        pendingSendId: d['pendingSendId'],
        approvalCode: d['approvalCode'],
        humanApprovedInChat: true,
      }),
    );
    await sink.waitFor(3);
    const sent = sink.received[2]!;
    // smtp-server reports an envelope's domain decoded to Unicode; the envelope is made of the same parsed, ASCII
    // recipients as the header (draft-input.test.ts).
    expect(sent.to).toEqual(['anna@müller.de']);
    expect(sent.smtpUtf8).toBe(false);
    expect(sent.raw.toString('latin1')).toMatch(/^To: "?Anna"? <anna@xn--mller-kva\.de>\r$/m);
  });
});

describe('an inbox whose own address is at an internationalised domain', () => {
  let box: SendingInbox;

  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD, { email: 'rex@bücher.example' });
  }, 120_000);

  afterAll(async () => {
    await box.close();
  });

  it('sends from its ASCII form, in the envelope, the From and the Message-ID (decision 0110)', async () => {
    expectToolOk(await box.send(await box.draft('Hallo')));
    await box.sink.waitFor(1);
    const sent = box.sink.received[0]!;
    // The envelope went out in ASCII: no SMTPUTF8 asked for, which a server without it refuses.
    expect(sent.smtpUtf8).toBe(false);
    expect(sent.from).toBe('rex@bücher.example'); // as smtp-server reports it, decoded
    const head = sent.raw.toString('latin1').split('\r\n\r\n')[0]!;
    expect(head).toMatch(/^[\x00-\x7f]*$/);
    expect(head).toMatch(/^From: rex@xn--bcher-kva\.example\r$/m);
    expect(head).toMatch(/^Message-ID: <[a-z0-9]+@xn--bcher-kva\.example>\r$/m);
  });
});

// Decision 0151: an address beyond ASCII before the @ (jürgen@…, 用户@…) is written to, through a mail server that
// takes SMTPUTF8 (RFC 6531); one that does not is never sent it.
describe('an address with letters beyond ASCII before the @', () => {
  const JURGEN = 'Jürgen <jürgen@Müller.de>';
  const draftTo = async (box: SendingInbox) =>
    expectToolOk(
      await box.call('create_draft', { inboxId: box.inboxId, to: JURGEN, subject: 'Grüße', text: 'Hallo.' }),
    );
  const boxes: SendingInbox[] = [];
  afterAll(async () => {
    for (const b of boxes) await b.close();
  });

  it('goes out with SMTPUTF8 asked for, the address as written in the envelope and the header', async () => {
    const box = await sendingInbox(USER, PASSWORD);
    boxes.push(box);
    const d = await draftTo(box);
    expect((d['draft'] as { to: string })['to']).toBe('"Jürgen" <jürgen@xn--mller-kva.de>');
    expectToolOk(await box.send(d));
    await box.sink.waitFor(1);
    const sent = box.sink.received[0]!;
    expect(sent.smtpUtf8).toBe(true);
    expect(sent.to).toEqual(['jürgen@müller.de']);
    const head = sent.raw.toString('utf8').split('\r\n\r\n')[0]!;
    expect(head).toMatch(/^To: (=\?UTF-8\?Q\?J=C3=BCrgen\?=|"?Jürgen"?) <jürgen@müller\.de>\r$/m);
  }, 120_000);

  it('is never sent to a mail server without SMTPUTF8: refused in words, nothing goes out', async () => {
    const box = await sendingInbox(USER, PASSWORD, { sink: { noSmtpUtf8: true } });
    boxes.push(box);
    const refused = expectToolError(await box.send(await draftTo(box)), 'provider_error');
    expect(refused['details']).toEqual({ status: 'not_sent' });
    expect(refused['sayToHuman']).toBe(
      'The email was not sent: the mail server does not take addresses with letters beyond ASCII before the @ ' +
        '(SMTPUTF8), such as “jürgen@xn--mller-kva.de”; write to another address of theirs, or send from an inbox ' +
        'whose mail server takes them. Nothing went out.',
    );
    // An ASCII address still goes through the same server.
    expectToolOk(await box.send(await box.draft('Plain')));
    await box.sink.waitFor(1);
    expect(box.sink.received.map((m) => m.to)).toEqual([['friend@example.org']]);
  }, 120_000);
});
