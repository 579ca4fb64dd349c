import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendViaImap } from '../rig/append-via-imap.ts';
import { imapClient } from '../support/imap-inbox.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0088: mail sent from an IMAP inbox said `From: ann@example.test`, without the person's name, where their
// own mail client puts "Ann Example". The name is learned from their Sent mail on the first draft, and set or emptied
// on the console; no agent can change it.
const USER = 'ann';
const PASSWORD = 'ann-imap-password';
const ADDRESS = `${USER}@example.test`;

const sentMail = (from: string, subject: string) =>
  Buffer.from(
    `From: ${from}\r\nTo: friend@example.org\r\nSubject: ${subject}\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\n` +
      `Message-ID: <${subject.replace(/\W/g, '')}@example.test>\r\n\r\nSent earlier.\r\n`,
  );

describe('the name on the mail a person sends', () => {
  let box: SendingInbox;
  const inSent = (...raw: Buffer[]) =>
    appendViaImap({
      host: '127.0.0.1',
      port: box.dovecot.port,
      user: USER,
      password: PASSWORD,
      folder: 'Sent',
      messages: raw.map((r) => ({ raw: r, flags: ['\\Seen'] })),
    });

  /** The From of the newest message in a folder, as the server holds it. */
  const fromIn = async (path: string) => {
    const c = await imapClient(box.dovecot, USER, PASSWORD);
    try {
      const lock = await c.getMailboxLock(path);
      try {
        const m = await c.fetchOne('*', { envelope: true, headers: ['from'] });
        return {
          envelope: m ? m.envelope?.from?.[0] : undefined,
          header: m ? m.headers?.toString().trim() : '',
        };
      } finally {
        lock.release();
      }
    } finally {
      await c.logout();
    }
  };
  const lastSentFrom = () =>
    /^From: (.*)\r$/m.exec(box.sink.received.at(-1)?.raw.toString('latin1') ?? '')?.[1];
  /** What the Inboxes page says beside this inbox's name field (the test app has a demo inbox too). */
  const hint = async () => {
    const page = await (await box.web.get('/inboxes')).text();
    return new RegExp(`id="sender-${box.inboxId}-hint">([^<]*)<`).exec(page)?.[1];
  };
  const setName = async (senderName: string) => {
    await box.web.get('/inboxes');
    return box.web.post(`/inboxes/${box.inboxId}/sender-name`, { senderName });
  };

  beforeAll(async () => {
    box = await sendingInbox(USER, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await box.close();
  });

  it('is none while the Sent folder is empty, and is asked again on the next draft', async () => {
    const first = await box.draft('Before any sent mail');
    expect(await fromIn('Drafts')).toMatchObject({ envelope: { name: '', address: ADDRESS } });
    expect(expectToolOk(await box.send(first))).toMatchObject({ sent: true });
    await box.sink.waitFor(1);
    expect(lastSentFrom()).toBe(ADDRESS);
    // The service's own nameless copy in Sent teaches nothing: still unknown, looked for again.
    expect(await box.subjects('Sent')).toEqual(['Before any sent mail']);
    await box.draft('Still before');
    expect(await fromIn('Drafts')).toMatchObject({ envelope: { name: '', address: ADDRESS } });
    expect(await hint()).toMatch(/^Not known yet/);
  });

  it('is learned from the Sent mail: the name most of it from this address carries, and sent', async () => {
    await inSent(
      sentMail(`"A. Example" <${ADDRESS}>`, 'Oldest'),
      sentMail(`Ann Example <${ADDRESS}>`, 'One'),
      sentMail(`"Ann Example" <${ADDRESS.toUpperCase()}>`, 'Two'),
      sentMail(`=?UTF-8?Q?Ann_Example?= <${ADDRESS}>`, 'Three'),
      sentMail(`Help Desk <helpdesk@example.test>`, 'From an alias'),
      sentMail(`${ADDRESS} <${ADDRESS}>`, 'Address as name'),
      sentMail(`"A. Example" <${ADDRESS}>`, 'Newest'),
    );
    const d = await box.draft('After sent mail');
    expect(await fromIn('Drafts')).toMatchObject({ envelope: { name: 'Ann Example', address: ADDRESS } });
    // The person approving it sees what the recipients will.
    expect(await (await box.web.get('/waiting')).text()).toContain(
      `from Ann Example &lt;${ADDRESS}&gt; (ann on Dovecot)`,
    );
    expect(expectToolOk(await box.send(d))).toMatchObject({ sent: true });
    await box.sink.waitFor(2);
    expect(lastSentFrom()).toBe(`Ann Example <${ADDRESS}>`);
    expect(await hint()).toBe(
      `Recipients see “Ann Example &lt;${ADDRESS}&gt;”. Empty it to send with the address alone.`,
    );
  });

  it('is the one the person sets on the console, in any script, and never learned over', async () => {
    const res = await setName('  Ann Éxample-Müller  ');
    expect(res.status).toBe(303);
    const d = await box.draft('With the set name');
    expect(await fromIn('Drafts')).toMatchObject({
      envelope: { name: 'Ann Éxample-Müller', address: ADDRESS },
    });
    expect(expectToolOk(await box.send(d))).toMatchObject({ sent: true });
    await box.sink.waitFor(3);
    expect(lastSentFrom()).toMatch(/^=\?UTF-8\?[QB]\?.+\?= <ann@example\.test>$/);
  });

  it('refuses a name that would break the header, in words, and keeps the one set', async () => {
    for (const bad of [
      'Ann <boss@example.test>',
      'Ann\r\nBcc: x@example.org',
      '=?UTF-8?B?QW5u?=',
      'x'.repeat(101),
    ]) {
      const res = await setName(bad);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/class="field-error"[^>]*role="alert">The name (contains|is)/);
    }
    await box.draft('Still the set name');
    expect(await fromIn('Drafts')).toMatchObject({ envelope: { name: 'Ann Éxample-Müller' } });
  });

  it('is none when the person empties it, and stays none', async () => {
    expect((await setName('')).status).toBe(303);
    const d = await box.draft('Without a name');
    expect(await fromIn('Drafts')).toMatchObject({ envelope: { name: '', address: ADDRESS } });
    expect(expectToolOk(await box.send(d))).toMatchObject({ sent: true });
    await box.sink.waitFor(4);
    expect(lastSentFrom()).toBe(ADDRESS);
    expect(await hint()).toBe(`None: recipients see ${ADDRESS} alone.`);
  });
});
